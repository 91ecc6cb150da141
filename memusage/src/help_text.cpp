#include "help_text.h"

#include "commit_id.h"  // generated at every build: MEMUSAGE_COMMIT

#ifndef MEMUSAGE_VERSION
#define MEMUSAGE_VERSION "unknown"
#endif

namespace memusage {

std::string_view help_text() {
    return "Usage: memusage [OPTION]... PROGRAM [PROGRAMOPTION]...\n"
           "Run PROGRAM and report how it used memory.\n"
           "\n"
           "   -n,--progname=NAME     Profile only the process whose program name is NAME\n"
           "   -p,--png=FILE          Draw a PNG graph of the run into FILE\n"
           "   -d,--data=FILE         Keep the binary profile data in FILE\n"
           "   -u,--unbuffered        Write every record at once\n"
           "   -b,--buffer=SIZE       Write records out SIZE at a time\n"
           "      --no-timer          Do not sample the stack with a timer\n"
           "   -m,--mmap              Also trace mmap, mremap and munmap\n"
           "      --color=WHEN        Colour the summary: auto, always or never\n"
           "      --threads           Add a table with a row per thread to the summary\n"
           "      --live              Show the program's figures on the terminal as it runs\n"
           "      --ps                List the profiled processes running now (no PROGRAM)\n"
           "      --watch=PID         Show the figures of running process PID (no PROGRAM)\n"
           "      --sites[=N]         After the summary, report the top N (10) allocation\n"
           "                          sites: by bytes at the heap peak, leaked, allocated;\n"
           "                          then the stack peaks, as --stack-peak\n"
           "      --stack-peak[=N]    After the summary, report the frames holding the main\n"
           "                          thread's deepest stack and the N (10) deepest other\n"
           "                          threads', with the bytes each held\n"
           "      --sites-sample[=BYTES]  The same from a sample: a stack every BYTES\n"
           "                          (512k) allocated on average; figures are estimates\n"
           "      --sites-file=FILE   Keep the allocation sites in FILE (for memusagestat)\n"
           "      --events=FILE       Record every heap block's allocation, resize and free\n"
           "                          (address, size, thread, site) in FILE\n"
           "      --leaks             After the summary, report the blocks never freed,\n"
           "                          by stack, largest first\n"
           "      --leak-exitcode=N   Exit with status N when there are leaks (--leaks)\n"
           "      --folded=FILE       Write the sites as folded stacks (FlameGraph)\n"
           "      --folded-metric=M   Weigh them by peak (default), leaked, allocated\n"
           "                          or blocks; kept: what the runtimes keep\n"
           "      --dhat=FILE         Write the sites as DHAT JSON (dh_view.html), with\n"
           "                          their blocks' lifetimes\n"
           "      --pprof=FILE        Write the sites as a pprof profile (go tool pprof,\n"
           "                          fleet profilers): allocated, at the peak, leaked\n"
           "      --massif=FILE       Write the heap's peak and end by stack in massif's\n"
           "                          format (ms_print, massif-visualizer)\n"
           "      --long-lived=DURATION  After the summary, report the sites of blocks\n"
           "                          that lived longer than DURATION (500ms, 2s, 100us)\n"
           "      --html=FILE         Write the run's HTML report into FILE: summary,\n"
           "                          timeline, flame graph, sites, block map, threads\n"
           "                          and leaks in one file that opens offline in a\n"
           "                          browser (keep its inputs with --keep, or --data,\n"
           "                          --sites-file and --events)\n"
           "      --keep=DIR          Keep the run's files in DIR (made if missing):\n"
           "                          run.dat, run.sites, run.events, run.summary, for\n"
           "                          memusagestat (--html-window: a window's report)\n"
           "\n"
           " Out-of-memory testing (allocations fail as glibc's malloc fails, ENOMEM):\n"
           "      --limit=SIZE        Refuse allocations that would take the heap past\n"
           "                          SIZE bytes (suffixes k, M, G or KiB, MiB, GiB)\n"
           "      --fail-at=N         Make the Nth allocation call fail\n"
           "      --fail-from=N       Make every allocation call from the Nth on fail\n"
           "      --fail-probability=P  Make each allocation call fail with probability P\n"
           "      --fail-seed=S       The seed for --fail-probability (default 0)\n"
           "\n"
           "   -?,--help              Print this help and exit\n"
           "      --usage             Print a short usage message and exit\n"
           "   -V,--version           Print the version and exit\n"
           "\n"
           " These options only matter together with --png:\n"
           "   -t,--time-based        Make the graph linear in time\n"
           "   -T,--total             Also draw the total of heap and stack\n"
           "      --title=STRING      Put STRING on top of the graph\n"
           "   -x,--x-size=SIZE       Make the graph SIZE pixels wide\n"
           "   -y,--y-size=SIZE       Make the graph SIZE pixels high\n"
           "\n"
           "Arguments required by long options are required by the short forms too.\n"
           "Options end at PROGRAM or at '--'; everything after belongs to PROGRAM.\n"
           "\n"
           "Exit status: PROGRAM's; 128+N when it died of signal N; 127 when it could\n"
           "not be run; 1 for a bad command line; N of --leak-exitcode=N when it\n"
           "exited leaving leaks.\n";
}

std::string_view usage_text() {
    return "Usage: memusage [--data=FILE] [--progname=NAME] [--png=FILE] [--unbuffered]\n"
           "\t    [--buffer=SIZE] [--no-timer] [--mmap] [--color=WHEN] [--threads]\n"
           "\t    [--sites[=N]] [--stack-peak[=N]] [--sites-sample[=BYTES]]\n"
           "\t    [--sites-file=FILE]\n"
           "\t    [--events=FILE] [--leaks] [--leak-exitcode=N] [--folded=FILE]\n"
           "\t    [--folded-metric=M] [--dhat=FILE] [--pprof=FILE]\n"
           "\t    [--massif=FILE]\n"
           "\t    [--long-lived=DURATION] [--html=FILE] [--keep=DIR]\n"
           "\t    [--limit=SIZE]\n"
           "\t    [--fail-at=N] [--fail-from=N] [--fail-probability=P]\n"
           "\t    [--fail-seed=S] [--time-based]\n"
           "\t    [--total] [--title=STRING] [--x-size=SIZE] [--y-size=SIZE]\n"
           "\t    [--live] PROGRAM [PROGRAMOPTION]...\n"
           "       memusage --ps\n"
           "       memusage --watch=PID\n";
}

std::string_view version_text() {
    return "memusage (memusage) " MEMUSAGE_VERSION " (commit " MEMUSAGE_COMMIT
           ")\n"
           "A reimplementation of the GNU C Library's memusage, under the MIT licence.\n"
           "There is NO warranty, to the extent permitted by law.\n";
}

std::string_view try_help_text() {
    return "Try 'memusage --help' or 'memusage --usage' for more information.\n";
}

}  // namespace memusage
