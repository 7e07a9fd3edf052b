/*
 * A VMM a guest has taken over, started by ateom-jail exactly as a cloud-hypervisor is. Each argument names one
 * attempt to get out (name=value); each prints one line "name RESULT", RESULT being "OK" (the attempt worked),
 * the errno's name it failed with, "KILLED:<signal>" or "visible:<n>". BrokenOutVmmTest asserts each line.
 * Attempts that would harm the test if they worked are made harmless: signal 0 instead of a real signal,
 * PTRACE_SEIZE (which stops nothing) and an immediate detach.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *errname(int e) {
    switch (e) {
    case EPERM: return "EPERM"; case ENOENT: return "ENOENT"; case ESRCH: return "ESRCH"; case EACCES: return "EACCES";
    case EROFS: return "EROFS"; case EAGAIN: return "EAGAIN"; case ENETUNREACH: return "ENETUNREACH";
    case ECONNREFUSED: return "ECONNREFUSED"; case EINVAL: return "EINVAL"; case ENOSYS: return "ENOSYS";
    case EXDEV: return "EXDEV"; case ETIMEDOUT: return "ETIMEDOUT"; case ENOMEM: return "ENOMEM"; case EFBIG: return "EFBIG";
    default: { static char buf[32]; snprintf(buf, sizeof buf, "errno%d", e); return buf; }
    }
}

static void report(const char *name, int rc) {
    if (rc >= 0) printf("%s OK\n", name); else printf("%s %s\n", name, errname(errno));
    fflush(stdout);
}

static int read_file(const char *path) {
    int fd = open(path, O_RDONLY);
    if (fd < 0) return -1;
    char c;
    int rc = read(fd, &c, 1) < 0 ? -1 : 0;
    close(fd);
    return rc;
}

static int write_file(const char *path) {
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (fd < 0) return -1;
    int rc = write(fd, "x", 1) == 1 ? 0 : -1;
    close(fd);
    return rc;
}

static void list_processes(const char *name) {
    DIR *d = opendir("/proc");
    if (!d) { report(name, -1); return; }
    int visible = 0;
    struct dirent *e;
    /* this program is pid 1 of its namespace, its children counted too: everything else is foreign */
    while ((e = readdir(d))) {
        int pid = atoi(e->d_name);
        if (pid > 1) visible++;
    }
    closedir(d);
    printf("%s visible:%d\n", name, visible);
    fflush(stdout);
}

static int ptrace_pid(pid_t pid) {
    long rc = ptrace(PTRACE_SEIZE, pid, 0, 0);
    if (rc == 0) ptrace(PTRACE_DETACH, pid, 0, 0);
    return rc == 0 ? 0 : -1;
}

static int connect_host(int port) {
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0) return -1;
    struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(port) };
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    int rc = connect(fd, (struct sockaddr *) &a, sizeof a);
    close(fd);
    return rc;
}

static int raise_limit(void) {
    struct rlimit r;
    if (getrlimit(RLIMIT_NOFILE, &r)) return -1;
    r.rlim_max += 1; r.rlim_cur = r.rlim_max;
    return setrlimit(RLIMIT_NOFILE, &r);
}

/* A child touches mib MiB: the memory cgroup must kill it (the OOM killer) before the host feels it. */
static void exhaust_memory(const char *name, long mib) {
    pid_t pid = fork();
    if (pid < 0) { report(name, -1); return; }
    if (pid == 0) {
        for (long i = 0; i < mib; i++) {
            char *p = malloc(1 << 20);
            if (!p) _exit(12);
            memset(p, 1, 1 << 20);
        }
        _exit(0);
    }
    int status;
    waitpid(pid, &status, 0);
    if (WIFSIGNALED(status)) printf("%s KILLED:%d\n", name, WTERMSIG(status));
    else if (WEXITSTATUS(status) == 12) printf("%s ENOMEM\n", name);
    else printf("%s OK\n", name);
    fflush(stdout);
}

/* Forks up to n sleeping children; the pids cgroup must refuse one before n. */
static void exhaust_pids(const char *name, int n) {
    pid_t kids[4096];
    int started = 0, err = 0;
    if (n > 4096) n = 4096;
    while (started < n) {
        pid_t pid = fork();
        if (pid < 0) { err = errno; break; }
        if (pid == 0) { pause(); _exit(0); }
        kids[started++] = pid;
    }
    for (int i = 0; i < started; i++) kill(kids[i], SIGKILL);
    for (int i = 0; i < started; i++) waitpid(kids[i], NULL, 0);
    if (err) printf("%s %s\n", name, errname(err)); else printf("%s OK\n", name);
    fflush(stdout);
}

/* Waits (60 s at most) until path exists: the test's signal that it bound this jail's files in. */
static int await_file(const char *path) {
    struct stat st;
    printf("awaiting %s\n", path);
    fflush(stdout);
    for (int i = 0; i < 6000; i++) {
        if (!stat(path, &st)) return 0;
        usleep(10000);
    }
    errno = ETIMEDOUT;
    return -1;
}

int main(int argc, char **argv) {
    for (int i = 1; i < argc; i++) {
        char *name = argv[i], *value = strchr(argv[i], '=');
        if (value) *value++ = '\0'; else value = "";
        errno = 0;
        if (!strncmp(name, "read", 4)) report(name, read_file(value));
        else if (!strncmp(name, "write", 5)) report(name, write_file(value));
        else if (!strcmp(name, "list-processes")) list_processes(name);
        else if (!strncmp(name, "signal", 6)) report(name, kill(atoi(value), 0));
        else if (!strncmp(name, "ptrace", 6)) report(name, ptrace_pid(atoi(value)));
        else if (!strcmp(name, "connect-host")) report(name, connect_host(atoi(value)));
        else if (!strcmp(name, "mknod")) report(name, mknod(value, S_IFCHR | 0600, makedev(1, 3)));
        else if (!strcmp(name, "raise-limit")) report(name, raise_limit());
        else if (!strcmp(name, "setuid-root")) report(name, setuid(0));
        else if (!strcmp(name, "user-namespace")) report(name, unshare(CLONE_NEWUSER));
        else if (!strcmp(name, "mount")) report(name, mount("none", value, "tmpfs", 0, NULL));
        else if (!strcmp(name, "chroot")) report(name, chroot(value));
        else if (!strcmp(name, "exhaust-memory")) exhaust_memory(name, atol(value));
        else if (!strcmp(name, "exhaust-pids")) exhaust_pids(name, atoi(value));
        else if (!strcmp(name, "await")) report(name, await_file(value));
        else if (!strcmp(name, "sleep")) { printf("sleeping\n"); fflush(stdout); sleep(atoi(value)); }
        else printf("%s UNKNOWN\n", name);
    }
    fflush(stdout);
    return 0;
}
