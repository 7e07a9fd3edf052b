/*
 * ateom-jail: starts one program (a cloud-hypervisor, or a test program) inside a jail, the way Firecracker's
 * jailer starts Firecracker. Everything happens before the program's first instruction:
 *
 *   join cgroups -> enter the slot's netns (or a new empty one) -> unshare mount, pid, ipc, uts -> fork ->
 *   (child, pid 1 of its pid namespace) make / private -> tmpfs root with only the listed bind mounts and
 *   device nodes -> /proc of its own pid namespace -> pivot_root, old root detached -> root read-only ->
 *   rlimits -> groups, gid, uid (never 0) -> all capability sets cleared (bounding and ambient too) ->
 *   no_new_privs -> no new namespaces (a small seccomp filter) -> Landlock where the kernel has it -> exec.
 *
 * Why a parent stays: a new pid namespace only takes effect for children, so the program cannot be the process
 * the daemon forked. The launcher forks once and stays as a tiny parent: it forwards SIGTERM/SIGINT/SIGHUP/
 * SIGQUIT/SIGUSR1/SIGUSR2, waits, and exits with the program's status (128+signal when killed, as a shell does).
 * The daemon keeps a normal child whose exit is the program's; killing the parent kills the program (the
 * program's parent-death signal), and the program's death empties its pid namespace. The parent drops to the
 * jail's uid and capabilities as well, so no root process remains in the jail's tree.
 *
 * Fails closed: any step that fails ends the launch with "ateom-jail: <step>: <reason> (errno N)" on stderr and
 * exit status 125, before the program runs.
 *
 * Usage: ateom-jail --uid U --gid G [--kvm-gid G] --root DIR [--bind SRC DST] [--ro-bind SRC DST] [--dev PATH]
 *                   [--tmpfs DIR] [--netns PATH | --new-netns] [--cgroup DIR]... [--rlimit NAME VALUE]...
 *                   [--landlock-rw PATH]... [--landlock-ro PATH]... [--landlock-deny-tcp] [--proc]
 *                   [--die-with-parent] [--chdir DIR] -- PROGRAM [ARG]...
 *        ateom-jail --inject PID {[--bind SRC DST] [--ro-bind SRC DST]... | -}
 *
 * --tmpfs mounts an empty tmpfs (root's, mode 0755) at DIR inside the root, in argv order with the binds: a mount
 * point where files are bound in later, after the program started (a warm pool member gets its sandbox's files so).
 * Landlock rules on such a dir cover what is mounted below it later: Landlock walks a path up across mount points.
 *
 * --inject is that later step: it binds host paths into the mount namespace of the running jail whose launcher (or
 * program) is PID, at DST there. A multi-threaded process (the daemon's JVM) cannot setns into a mount namespace, so
 * this mode of the launcher does it: each source is cloned as a detached mount (open_tree) in the daemon's namespace,
 * made nosuid, nodev, private and, for --ro-bind, read-only, before setns; then the destination's missing dirs are
 * made inside the jail (in a --tmpfs mount point: the jail's root stays read-only, a target outside every mount point
 * fails) and the mount is moved in (move_mount). With "-" it is started ahead: it opens and checks the jail's
 * namespace, then waits for its --bind and --ro-bind arguments on stdin (each ended by a NUL) until stdin's end, so
 * the claim pays no process start. Prints "ok" once every bind is in place. Fails closed like the launch: step, errno,
 * status 125.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/audit.h>
#include <linux/capability.h>
#include <linux/filter.h>
#include <linux/landlock.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <stddef.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAX_ITEMS 64
#define SETUP_FAILED 125

struct bind { const char *src, *dst; int ro; int dev; int tmpfs; };
struct limit { int resource; rlim_t value; };

static struct {
    uid_t uid; gid_t gid; gid_t kvm_gid; int has_uid, has_gid, has_kvm_gid;
    const char *root, *netns, *chdir_to;
    int new_netns, proc, die_with_parent, deny_tcp;
    long inject_pid;
    int inject_stdin;
    struct bind binds[MAX_ITEMS]; int nbinds;
    const char *cgroups[MAX_ITEMS]; int ncgroups;
    struct limit limits[MAX_ITEMS]; int nlimits;
    const char *ll_rw[MAX_ITEMS]; int nll_rw;
    const char *ll_ro[MAX_ITEMS]; int nll_ro;
    char **program;
} cfg;

static void die(const char *step, const char *what) {
    int err = errno;
    fprintf(stderr, "ateom-jail: %s%s%s: %s (errno %d)\n", step, what ? " " : "", what ? what : "", strerror(err), err);
    _exit(SETUP_FAILED);
}

static void usage(const char *why) {
    fprintf(stderr, "ateom-jail: bad arguments: %s\n", why);
    _exit(SETUP_FAILED);
}

static unsigned long number(const char *s, const char *name) {
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || *s == '\0' || *end != '\0' || s[0] == '-') usage(name);
    return (unsigned long) v;
}

static int resource_of(const char *name) {
    if (!strcmp(name, "nofile")) return RLIMIT_NOFILE;
    if (!strcmp(name, "nproc")) return RLIMIT_NPROC;
    if (!strcmp(name, "fsize")) return RLIMIT_FSIZE;
    if (!strcmp(name, "core")) return RLIMIT_CORE;
    if (!strcmp(name, "memlock")) return RLIMIT_MEMLOCK;
    usage("--rlimit: unknown limit (nofile, nproc, fsize, core, memlock)");
    return -1;
}

static void parse_inject_args(int n, char **args) {
    for (int i = 0; i < n; i++) {
        const char *a = args[i];
        if (strcmp(a, "--bind") && strcmp(a, "--ro-bind")) usage(a);
        if (i + 2 >= n) usage(a);
        if (cfg.nbinds >= MAX_ITEMS) usage("too many items");
        cfg.binds[cfg.nbinds++] = (struct bind) { args[i + 1], args[i + 2], !strcmp(a, "--ro-bind"), 0, 0 };
        i += 2;
    }
    if (cfg.nbinds == 0) usage("--inject without --bind or --ro-bind");
}

/* --inject PID, then --bind and --ro-bind, or "-": those arguments come on stdin later, each ended by a NUL. */
static void parse_inject(int argc, char **argv) {
    cfg.inject_pid = (long) number(argv[2], "--inject");
    if (cfg.inject_pid <= 0) usage("--inject needs a pid");
    if (argc == 4 && !strcmp(argv[3], "-")) cfg.inject_stdin = 1;
    else parse_inject_args(argc - 3, argv + 3);
}

/* The arguments "-" stands for: stdin to its end, NUL-separated. */
static void read_inject_stdin(void) {
    static char buf[65536];
    static char *args[3 * MAX_ITEMS + 1];
    size_t len = 0;
    ssize_t n;
    while ((n = read(0, buf + len, sizeof buf - 1 - len)) != 0) {
        if (n < 0) {
            if (errno == EINTR) continue;
            die("read arguments from stdin", NULL);
        }
        len += (size_t) n;
        if (len >= sizeof buf - 1) usage("arguments on stdin too long");
    }
    int count = 0;
    for (size_t start = 0, i = 0; i < len; i++) {
        if (buf[i] != '\0') continue;
        if (count >= 3 * MAX_ITEMS) usage("too many items");
        args[count++] = buf + start;
        start = i + 1;
    }
    parse_inject_args(count, args);
}

static void parse(int argc, char **argv) {
    if (argc >= 3 && !strcmp(argv[1], "--inject")) { parse_inject(argc, argv); return; }
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
#define NEED(n) do { if (i + (n) >= argc) usage(a); } while (0)
#define ROOM(count) do { if ((count) >= MAX_ITEMS) usage("too many items"); } while (0)
        if (!strcmp(a, "--")) { cfg.program = argv + i + 1; break; }
        else if (!strcmp(a, "--uid")) { NEED(1); cfg.uid = number(argv[++i], a); cfg.has_uid = 1; }
        else if (!strcmp(a, "--gid")) { NEED(1); cfg.gid = number(argv[++i], a); cfg.has_gid = 1; }
        else if (!strcmp(a, "--kvm-gid")) { NEED(1); cfg.kvm_gid = number(argv[++i], a); cfg.has_kvm_gid = 1; }
        else if (!strcmp(a, "--root")) { NEED(1); cfg.root = argv[++i]; }
        else if (!strcmp(a, "--netns")) { NEED(1); cfg.netns = argv[++i]; }
        else if (!strcmp(a, "--new-netns")) cfg.new_netns = 1;
        else if (!strcmp(a, "--proc")) cfg.proc = 1;
        else if (!strcmp(a, "--die-with-parent")) cfg.die_with_parent = 1;
        else if (!strcmp(a, "--landlock-deny-tcp")) cfg.deny_tcp = 1;
        else if (!strcmp(a, "--chdir")) { NEED(1); cfg.chdir_to = argv[++i]; }
        else if (!strcmp(a, "--bind") || !strcmp(a, "--ro-bind")) {
            NEED(2); ROOM(cfg.nbinds);
            cfg.binds[cfg.nbinds++] = (struct bind) { argv[i + 1], argv[i + 2], !strcmp(a, "--ro-bind"), 0, 0 };
            i += 2;
        } else if (!strcmp(a, "--dev")) {
            NEED(1); ROOM(cfg.nbinds);
            cfg.binds[cfg.nbinds++] = (struct bind) { argv[i + 1], argv[i + 1], 0, 1, 0 };
            i++;
        } else if (!strcmp(a, "--tmpfs")) {
            NEED(1); ROOM(cfg.nbinds);
            cfg.binds[cfg.nbinds++] = (struct bind) { NULL, argv[i + 1], 0, 0, 1 };
            i++;
        } else if (!strcmp(a, "--cgroup")) { NEED(1); ROOM(cfg.ncgroups); cfg.cgroups[cfg.ncgroups++] = argv[++i]; }
        else if (!strcmp(a, "--rlimit")) {
            NEED(2); ROOM(cfg.nlimits);
            cfg.limits[cfg.nlimits++] = (struct limit) { resource_of(argv[i + 1]), number(argv[i + 2], a) };
            i += 2;
        } else if (!strcmp(a, "--landlock-rw")) { NEED(1); ROOM(cfg.nll_rw); cfg.ll_rw[cfg.nll_rw++] = argv[++i]; }
        else if (!strcmp(a, "--landlock-ro")) { NEED(1); ROOM(cfg.nll_ro); cfg.ll_ro[cfg.nll_ro++] = argv[++i]; }
        else usage(a);
    }
    if (!cfg.program || !cfg.program[0]) usage("no program after --");
    if (!cfg.has_uid || !cfg.has_gid || cfg.uid == 0 || cfg.gid == 0) usage("--uid and --gid are required and never 0");
    if (!cfg.root || cfg.root[0] != '/') usage("--root must be an absolute path");
    if (cfg.netns && cfg.new_netns) usage("--netns and --new-netns exclude each other");
    if (!cfg.netns && !cfg.new_netns) usage("one of --netns or --new-netns is required");
}

/* Write "0" (the writer itself) into cgroup.procs: v1 and v2 both take it. */
static void join_cgroups(void) {
    for (int i = 0; i < cfg.ncgroups; i++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/cgroup.procs", cfg.cgroups[i]);
        int fd = open(path, O_WRONLY | O_CLOEXEC);
        if (fd < 0) die("join cgroup", path);
        if (write(fd, "0", 1) != 1) die("join cgroup", path);
        close(fd);
    }
}

static void enter_network(void) {
    if (cfg.new_netns) {
        if (unshare(CLONE_NEWNET)) die("unshare", "network namespace");
        return;
    }
    int fd = open(cfg.netns, O_RDONLY | O_CLOEXEC);
    if (fd < 0) die("open netns", cfg.netns);
    if (setns(fd, CLONE_NEWNET)) die("setns", cfg.netns);
    close(fd);
}

/* mkdir -p of path's directories (and path itself when dir), below the new root. */
static void make_path(const char *path, int dir) {
    char buf[4096];
    if (snprintf(buf, sizeof buf, "%s", path) >= (int) sizeof buf) { errno = ENAMETOOLONG; die("mkdir", path); }
    for (char *p = buf + 1; *p; p++) {
        if (*p != '/') continue;
        *p = '\0';
        if (mkdir(buf, 0755) && errno != EEXIST) die("mkdir", buf);
        *p = '/';
    }
    if (dir) {
        if (mkdir(buf, 0755) && errno != EEXIST) die("mkdir", buf);
    } else {
        int fd = open(buf, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
        if (fd < 0) die("create mount point", buf);
        close(fd);
    }
}

static void mount_binds(void) {
    for (int i = 0; i < cfg.nbinds; i++) {
        struct bind *b = &cfg.binds[i];
        struct stat st;
        char target[4096];
        if (b->dst[0] != '/') { errno = EINVAL; die("bind target must be absolute:", b->dst); }
        if (b->tmpfs) {
            snprintf(target, sizeof target, "%s%s", cfg.root, b->dst);
            make_path(target, 1);
            if (mount("ateom-jail", target, "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC, "mode=0755,size=1m")) die("mount tmpfs", target);
            continue;
        }
        if (stat(b->src, &st)) die("bind source", b->src);
        if (b->dev && !S_ISCHR(st.st_mode)) { errno = ENODEV; die("--dev is not a character device:", b->src); }
        snprintf(target, sizeof target, "%s%s", cfg.root, b->dst);
        make_path(target, S_ISDIR(st.st_mode));
        if (mount(b->src, target, NULL, MS_BIND | MS_REC, NULL)) die("bind mount", b->src);
        unsigned long flags = MS_BIND | MS_REMOUNT | MS_NOSUID | (b->ro ? MS_RDONLY : 0) | (b->dev ? MS_NOEXEC : MS_NODEV);
        if (mount(NULL, target, NULL, flags, NULL)) die("remount bind", target);
    }
}

static void build_root(void) {
    if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL)) die("make / private", NULL);
    if (mount("ateom-jail", cfg.root, "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755,size=1m")) die("mount tmpfs root", cfg.root);
    mount_binds();
    if (cfg.proc) {
        char target[4096];
        snprintf(target, sizeof target, "%s/proc", cfg.root);
        make_path(target, 1);
        /* this process is pid 1 of the new pid namespace: the proc shows that namespace only */
        if (mount("proc", target, "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL)) die("mount proc", target);
    }
    if (chdir(cfg.root)) die("chdir", cfg.root);
    /* pivot_root(".", ".") stacks the old root under the new one; detaching it leaves nothing of the host */
    if (syscall(SYS_pivot_root, ".", ".")) die("pivot_root", cfg.root);
    if (umount2(".", MNT_DETACH)) die("detach old root", NULL);
    if (chdir("/")) die("chdir", "/");
    if (mount(NULL, "/", NULL, MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV, NULL)) die("remount root read-only", NULL);
    if (sethostname("ateom-jail", 10)) die("sethostname", NULL);
}

static void set_limits(void) {
    for (int i = 0; i < cfg.nlimits; i++) {
        struct rlimit r = { cfg.limits[i].value, cfg.limits[i].value };
        if (setrlimit(cfg.limits[i].resource, &r)) die("setrlimit", NULL);
    }
}

/* Groups, gid, uid, then every capability set emptied; after this no way back to root. */
static void drop_privileges(void) {
    for (int cap = 0; cap <= 63; cap++) {
        if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) && errno != EINVAL) die("drop bounding capability", NULL);
    }
    if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) && errno != EINVAL) die("clear ambient capabilities", NULL);
    if (setgroups(cfg.has_kvm_gid ? 1 : 0, &cfg.kvm_gid)) die("setgroups", NULL);
    if (setresgid(cfg.gid, cfg.gid, cfg.gid)) die("setresgid", NULL);
    if (setresuid(cfg.uid, cfg.uid, cfg.uid)) die("setresuid", NULL);
    struct __user_cap_header_struct header = { _LINUX_CAPABILITY_VERSION_3, 0 };
    struct __user_cap_data_struct data[2];
    memset(data, 0, sizeof data);
    if (syscall(SYS_capset, &header, data)) die("clear capabilities", NULL);
    if (getuid() == 0 || geteuid() == 0 || getgid() == 0) { errno = EPERM; die("uid or gid still 0", NULL); }
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)) die("no_new_privs", NULL);
}

/* The kernel's ABI may be newer than this header: the newer fields are declared here. */
struct ruleset_attr { uint64_t handled_access_fs, handled_access_net, scoped; };
#define FS_FILE_RIGHTS (LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_READ_FILE \
                        | (1ULL << 14) /* truncate */ | (1ULL << 15) /* ioctl_dev */)
#define FS_RO_RIGHTS (LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_READ_DIR)

static void add_rule(int ruleset, const char *path, uint64_t access, uint64_t handled) {
    struct landlock_path_beneath_attr rule = { 0 };
    struct stat st;
    rule.parent_fd = open(path, O_PATH | O_CLOEXEC);
    if (rule.parent_fd < 0) die("landlock path", path);
    if (fstat(rule.parent_fd, &st)) die("landlock path", path);
    rule.allowed_access = access & handled & (S_ISDIR(st.st_mode) ? ~0ULL : FS_FILE_RIGHTS);
    if (syscall(SYS_landlock_add_rule, ruleset, LANDLOCK_RULE_PATH_BENEATH, &rule, 0)) die("landlock add rule", path);
    close(rule.parent_fd);
}

/* Second wall for the file system: only the listed paths, whatever a bug in the mounts above left visible. */
static void apply_landlock(void) {
    long abi = syscall(SYS_landlock_create_ruleset, NULL, 0, LANDLOCK_CREATE_RULESET_VERSION);
    if (abi < 1) {
        fprintf(stderr, "ateom-jail: note: Landlock unavailable (%s), the mount namespace alone limits the file system\n",
                strerror(errno));
        return;
    }
    struct ruleset_attr attr = { 0 };
    size_t size = sizeof(uint64_t);
    int fs_bits = abi == 1 ? 13 : abi == 2 ? 14 : abi <= 4 ? 15 : 16;
    attr.handled_access_fs = (1ULL << fs_bits) - 1;
    if (abi >= 4 && cfg.deny_tcp) { attr.handled_access_net = 3; /* bind and connect TCP: none allowed */ }
    if (abi >= 4) size = 2 * sizeof(uint64_t);
    if (abi >= 6) { attr.scoped = 3; /* abstract unix sockets and signals only within this domain */ size = sizeof attr; }
    int ruleset = syscall(SYS_landlock_create_ruleset, &attr, size, 0);
    if (ruleset < 0) die("landlock create ruleset", NULL);
    for (int i = 0; i < cfg.nll_rw; i++) add_rule(ruleset, cfg.ll_rw[i], ~0ULL, attr.handled_access_fs);
    for (int i = 0; i < cfg.nll_ro; i++) add_rule(ruleset, cfg.ll_ro[i], FS_RO_RIGHTS, attr.handled_access_fs);
    if (syscall(SYS_landlock_restrict_self, ruleset, 0)) die("landlock restrict self", NULL);
    close(ruleset);
}

/*
 * No new namespaces: an unprivileged user namespace would hand the program a full capability set over objects
 * it creates there (the host allows them), the start of many kernel exploits. CHV's own seccomp filter, applied
 * later, stays the fine-grained one; this one only refuses unshare, setns, and clone with a namespace flag.
 * clone3 passes its flags in memory a filter cannot read, so it answers ENOSYS and libc falls back to clone.
 */
static void forbid_namespaces(void) {
#if defined(__x86_64__)
#define JAIL_AUDIT_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define JAIL_AUDIT_ARCH AUDIT_ARCH_AARCH64
#endif
    const uint32_t ns_flags = CLONE_NEWNS | CLONE_NEWUTS | CLONE_NEWIPC | CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWNET
                              | CLONE_NEWCGROUP | 0x00000080 /* CLONE_NEWTIME */;
    struct sock_filter filter[] = {
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, JAIL_AUDIT_ARCH, 1, 0),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_unshare, 5, 0),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_setns, 4, 0),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_clone3, 4, 0),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_clone, 0, 4),
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[0])), /* the low half on x86_64 and arm64 */
        BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, ns_flags, 0, 2),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOSYS),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
    };
    struct sock_fprog prog = { sizeof filter / sizeof filter[0], filter };
    if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog)) die("seccomp (no new namespaces)", NULL);
}

/* Credential changes clear the parent-death signal, so it is set again after them. */
static void die_with_parent(void) {
    if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0)) die("parent-death signal", NULL);
}

static pid_t child;

static void forward(int sig) {
    if (child > 0) kill(child, sig);
}

static int wait_child(void) {
    static const int forwarded[] = { SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2 };
    struct sigaction sa = { 0 };
    sa.sa_handler = forward;
    for (size_t i = 0; i < sizeof forwarded / sizeof forwarded[0]; i++) sigaction(forwarded[i], &sa, NULL);
    int status;
    while (waitpid(child, &status, 0) < 0) {
        if (errno != EINTR) die("waitpid", NULL);
    }
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/*
 * --inject: each source cloned as a detached mount in the daemon's namespace and set up there, so it is never seen
 * half made; then setns into the jail's mount namespace, its mount point made (inside a --tmpfs mount point: the
 * jail's root stays read-only) and the mount moved there.
 */
/* The jail's mount namespace, pinned; refused while it is still the caller's (a launcher not yet in its jail). */
static int open_jail_namespace(void) {
    char ns[64];
    snprintf(ns, sizeof ns, "/proc/%ld/ns/mnt", cfg.inject_pid);
    int nsfd = open(ns, O_RDONLY | O_CLOEXEC);
    if (nsfd < 0) die("open mount namespace", ns);
    /* binding into the caller's own namespace would change the host's mounts */
    struct stat theirs, ours;
    if (fstat(nsfd, &theirs) || stat("/proc/self/ns/mnt", &ours)) die("stat mount namespace", ns);
    if (theirs.st_ino == ours.st_ino && theirs.st_dev == ours.st_dev) { errno = EINVAL; die("not a jail's mount namespace:", ns); }
    return nsfd;
}

static int inject(void) {
    int fds[MAX_ITEMS], dirs[MAX_ITEMS];
    /* started ahead ("-"), it waits for its arguments with the namespace already open and checked */
    int nsfd = open_jail_namespace();
    if (cfg.inject_stdin) read_inject_stdin();
    for (int i = 0; i < cfg.nbinds; i++) {
        struct bind *b = &cfg.binds[i];
        struct stat st;
        if (b->src[0] != '/' || b->dst[0] != '/') { errno = EINVAL; die("inject paths must be absolute:", b->dst); }
        if (stat(b->src, &st)) die("inject source", b->src);
        dirs[i] = S_ISDIR(st.st_mode);
        fds[i] = open_tree(AT_FDCWD, b->src, OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_RECURSIVE);
        if (fds[i] < 0) die("open_tree", b->src);
        struct mount_attr attr = { 0 };
        attr.attr_set = MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV | (b->ro ? MOUNT_ATTR_RDONLY : 0);
        attr.propagation = MS_PRIVATE;
        if (mount_setattr(fds[i], "", AT_EMPTY_PATH | AT_RECURSIVE, &attr, sizeof attr)) die("mount_setattr", b->src);
    }
    if (setns(nsfd, CLONE_NEWNS)) die("setns", "mount namespace");
    close(nsfd);
    for (int i = 0; i < cfg.nbinds; i++) {
        struct bind *b = &cfg.binds[i];
        struct stat st;
        if (stat(b->dst, &st)) make_path(b->dst, dirs[i]);
        if (move_mount(fds[i], "", AT_FDCWD, b->dst, MOVE_MOUNT_F_EMPTY_PATH)) die("move_mount", b->dst);
        close(fds[i]);
    }
    /* the caller may go on at this line, before this process's exit is seen */
    if (write(1, "ok\n", 3) != 3) die("report", NULL);
    return 0;
}

/* The launcher holds the write end of a pipe: its end (EOF on the read end) is how the program learns of it. */
static void check_launcher_alive(int launcher_fd) {
    struct pollfd p = { launcher_fd, POLLIN, 0 };
    if (poll(&p, 1, 0) != 0) { errno = ESRCH; die("launcher gone before exec", NULL); }
}

int main(int argc, char **argv) {
    parse(argc, argv);
    if (cfg.inject_pid) return inject();
    pid_t daemon = getppid();
    if (cfg.die_with_parent) die_with_parent();
    join_cgroups();
    enter_network();
    if (unshare(CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWIPC | CLONE_NEWUTS)) die("unshare", "mount, pid, ipc and uts namespaces");
    int alive[2];
    if (pipe2(alive, O_CLOEXEC)) die("pipe", NULL);
    child = fork();
    if (child < 0) die("fork", NULL);
    if (child > 0) {
        close(alive[0]);
        drop_privileges();
        if (cfg.die_with_parent) {
            die_with_parent();
            if (getppid() != daemon) { kill(child, SIGKILL); errno = ESRCH; die("daemon gone before the jail was up", NULL); }
        }
        return wait_child();
    }
    close(alive[1]);
    build_root();
    set_limits();
    drop_privileges();
    /* the program dies with the launcher, whatever killed it */
    die_with_parent();
    check_launcher_alive(alive[0]);
    apply_landlock();
    forbid_namespaces();
    if (chdir(cfg.chdir_to ? cfg.chdir_to : "/")) die("chdir", cfg.chdir_to);
    execv(cfg.program[0], cfg.program);
    die("exec", cfg.program[0]);
}
