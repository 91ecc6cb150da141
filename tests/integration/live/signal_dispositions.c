// SPDX-License-Identifier: MIT
// Says how the program finds the dispositions of the signals that end it by default, then
// ends itself with SIGTERM. Under the collector with the live figures on, it must find
// them as it left them (the default) and die of the signal.
#include <signal.h>
#include <stdio.h>
#include <unistd.h>

int main(void) {
    const int numbers[] = {SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGPIPE};
    const char* const names[] = {"SIGHUP", "SIGINT", "SIGQUIT", "SIGTERM", "SIGPIPE"};
    for (int i = 0; i < 5; ++i) {
        struct sigaction action;
        if (sigaction(numbers[i], NULL, &action) != 0) return 2;
        int is_default = (action.sa_flags & SA_SIGINFO) == 0 && action.sa_handler == SIG_DFL;
        printf("%s %s\n", names[i], is_default ? "default" : "a handler");
    }
    void (*before)(int) = signal(SIGHUP, SIG_DFL);
    printf("signal(SIGHUP) gave %s\n", before == SIG_DFL ? "the default" : "a handler");
    printf("fixture pid %ld\n", (long)getpid());
    fflush(stdout);
    raise(SIGTERM);
    return 0;
}
