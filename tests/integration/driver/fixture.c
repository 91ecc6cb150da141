// SPDX-License-Identifier: MIT
// A program for the driver to run. It allocates a little, so the collector has something to
// count, then does what its first argument says.
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

static void allocate_a_little(void) {
    for (int i = 0; i < 16; ++i) {
        char* volatile block = malloc(100 + (size_t)i);
        if (block) block[0] = 1;
        free(block);
    }
}

int main(int argc, char** argv) {
    struct rlimit no_core = {0, 0};
    setrlimit(RLIMIT_CORE, &no_core);  // the signal tests should not leave core files about
    // "lift-file-limit MODE...": a soft file size limit (ulimit -f) the driver was given is
    // not the program's, whose collector then writes its files whole; then MODE as usual.
    if (argc > 1 && strcmp(argv[1], "lift-file-limit") == 0) {
        struct rlimit files;
        getrlimit(RLIMIT_FSIZE, &files);
        files.rlim_cur = files.rlim_max;
        setrlimit(RLIMIT_FSIZE, &files);
        ++argv;
        --argc;
    }
    allocate_a_little();
    if (argc < 2) return 0;
    const char* mode = argv[1];
    if (strcmp(mode, "exit") == 0 && argc > 2) return atoi(argv[2]);
    if (strcmp(mode, "signal") == 0 && argc > 2) {
        int signal_number = atoi(argv[2]);
        signal(signal_number, SIG_DFL);
        raise(signal_number);
        return 99;
    }
    if (strcmp(mode, "args") == 0) {
        for (int i = 2; i < argc; ++i) printf("[%s]\n", argv[i]);
        return 0;
    }
    if (strcmp(mode, "env") == 0 && argc > 2) {
        const char* value = getenv(argv[2]);
        puts(value ? value : "<unset>");
        return 0;
    }
    if (strcmp(mode, "run") == 0 && argc > 2) {  // run argv[2..] and pass on its exit status
        pid_t child = fork();
        if (child == 0) {
            execv(argv[2], argv + 2);
            _exit(127);
        }
        int status = 0;
        waitpid(child, &status, 0);
        return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    }
    if (strcmp(mode, "wait") == 0 && argc > 2) {  // say "started" through a file, then wait
        int fd = open(argv[2], O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
        if (fd >= 0) close(fd);
        for (;;) pause();
    }
    fprintf(stderr, "fixture: unknown mode %s\n", mode);
    return 2;
}
