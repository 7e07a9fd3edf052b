/*
 * ateom-die-with-parent: makes the program it execs die with the process that started it, as
 * `setpriv --pdeathsig SIGKILL --` does, for less: a static binary with nothing to load (setpriv is dynamic and
 * loads libcap-ng). On the 2-core test host it adds ~1 ms to a child's start where setpriv adds ~2, and a sandbox's
 * bring-up starts three virtiofsd at once (docs/decisions.md, issue 27, "Children die with the daemon through a
 * static helper").
 *
 * Usage: ateom-die-with-parent PARENT_PID PROGRAM [ARG]...
 *
 * Sets PR_SET_PDEATHSIG to SIGKILL, then checks that its parent is still PARENT_PID: a parent that died before the
 * signal was set would never send it (the child was re-parented), so the launch fails instead of starting a program
 * that outlives it (setpriv does not check). The signal survives the exec (it is cleared only by a change of
 * credentials, which is why a jailed VMM's launcher sets its own after its uid change). Then PROGRAM is exec'd
 * (searched in PATH when it has no slash) under the same pid.
 *
 * Fails closed: "ateom-die-with-parent: <step>: <reason>" on stderr and exit status 125 before the program runs
 * (127 when the program cannot be executed, as a shell does).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#define SETUP_FAILED 125
#define CANNOT_EXEC 127

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: ateom-die-with-parent PARENT_PID PROGRAM [ARG]...\n");
        return SETUP_FAILED;
    }
    char *end;
    errno = 0;
    long parent = strtol(argv[1], &end, 10);
    if (errno != 0 || *end != '\0' || parent <= 1) {
        fprintf(stderr, "ateom-die-with-parent: parent pid: not a pid: '%s'\n", argv[1]);
        return SETUP_FAILED;
    }
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0) {
        fprintf(stderr, "ateom-die-with-parent: prctl(PR_SET_PDEATHSIG): %s (errno %d)\n", strerror(errno), errno);
        return SETUP_FAILED;
    }
    if (getppid() != (pid_t) parent) {
        fprintf(stderr, "ateom-die-with-parent: parent pid %ld has exited before the death signal was set\n", parent);
        return SETUP_FAILED;
    }
    execvp(argv[2], argv + 2);
    fprintf(stderr, "ateom-die-with-parent: exec %s: %s (errno %d)\n", argv[2], strerror(errno), errno);
    return CANNOT_EXEC;
}
