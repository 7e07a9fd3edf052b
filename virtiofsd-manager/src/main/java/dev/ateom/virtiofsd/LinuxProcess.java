package dev.ateom.virtiofsd;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A snapshot of one process as /proc shows it: enough to tell whether a pid really is a given virtiofsd
 * before signalling it, and which sockets it holds.
 *
 * @param pid        process id
 * @param parentPid  from /proc/pid/stat
 * @param state      one-letter state from /proc/pid/stat ({@code Z} for a zombie)
 * @param startTicks start time in clock ticks after boot (field 22 of /proc/pid/stat); with the pid it
 *                   identifies a process even after pid reuse
 * @param argv       /proc/pid/cmdline split at NUL; empty for zombies and kernel threads
 */
public record LinuxProcess(long pid, long parentPid, char state, long startTicks, List<String> argv) {

    private static final Path PROC = Path.of("/proc");
    private static final byte[] SECCOMP = "Seccomp:".getBytes(StandardCharsets.US_ASCII);
    private static final Pattern SOCKET_LINK = Pattern.compile("socket:\\[(\\d+)]");

    public LinuxProcess {
        argv = List.copyOf(argv);
    }

    /** The process with this pid, or empty when there is none (or it vanished while being read). */
    public static Optional<LinuxProcess> read(long pid) {
        try {
            return Optional.of(withStat(pid, splitCmdline(Files.readAllBytes(PROC.resolve(Long.toString(pid)).resolve("cmdline")))));
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
    }

    /** Every process currently in /proc. */
    public static List<LinuxProcess> all() {
        return allWhose(argv -> true);
    }

    /**
     * Every process in /proc whose command line {@code wanted} accepts. Only the command line is read of the others: a
     * scan for leftovers reads one file per process on the host, and their stat only for the few it looks for.
     */
    public static List<LinuxProcess> allWhose(Predicate<List<String>> wanted) {
        List<LinuxProcess> processes = new ArrayList<>();
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(PROC)) {
            for (Path entry : entries) {
                String name = entry.getFileName().toString();
                if (!isPid(name)) continue;
                try {
                    List<String> argv = splitCmdline(Files.readAllBytes(entry.resolve("cmdline")));
                    if (wanted.test(argv)) processes.add(withStat(Long.parseLong(name), argv));
                } catch (IOException | RuntimeException vanished) {
                    // it exited while being read: it is not there
                }
            }
        } catch (IOException e) {
            throw new VirtiofsdException("cannot list /proc: " + e.getMessage(), e);
        }
        return processes;
    }

    private static LinuxProcess withStat(long pid, List<String> argv) throws IOException {
        String stat = Files.readString(PROC.resolve(Long.toString(pid)).resolve("stat"), StandardCharsets.UTF_8);
        // the command name in parentheses may itself contain spaces or parentheses: parse after the last ')'
        String[] fields = stat.substring(stat.lastIndexOf(')') + 2).trim().split(" ");
        char state = fields[0].charAt(0);
        long parentPid = Long.parseLong(fields[1]);
        long startTicks = Long.parseLong(fields[19]);
        return new LinuxProcess(pid, parentPid, state, startTicks, argv);
    }

    private static boolean isPid(String name) {
        if (name.isEmpty()) return false;
        for (int i = 0; i < name.length(); i++) {
            if (name.charAt(i) < '0' || name.charAt(i) > '9') return false;
        }
        return true;
    }

    private static List<String> splitCmdline(byte[] cmdline) {
        List<String> argv = new ArrayList<>();
        int start = 0;
        for (int i = 0; i < cmdline.length; i++) {
            if (cmdline[i] == 0) {
                argv.add(new String(cmdline, start, i - start, StandardCharsets.UTF_8));
                start = i + 1;
            }
        }
        if (start < cmdline.length) {
            argv.add(new String(cmdline, start, cmdline.length - start, StandardCharsets.UTF_8));
        }
        return argv;
    }

    /**
     * Whether the process runs under a seccomp filter ({@code Seccomp: 2} in /proc/pid/status). virtiofsd enters its
     * filter as the last step of setting itself up, right before it serves: the one sign that it is ready, whichever
     * of its processes serves.
     */
    public static boolean underSeccompFilter(long pid) {
        try {
            // as bytes: a serving watch polls each process of a starting virtiofsd every few ms, and the file's ~50 lines
            // as strings were the largest part of what a resume allocated once the snapshot's buffers were sized
            return seccompFiltered(Files.readAllBytes(PROC.resolve(Long.toString(pid)).resolve("status")));
        } catch (IOException gone) {
            return false; // the process exited: it serves nothing
        }
    }

    /** Whether the content of a /proc/pid/status says {@code Seccomp: 2} (filter mode). */
    static boolean seccompFiltered(byte[] status) {
        for (int line = 0; line < status.length; line++) {
            if (Arrays.equals(status, line, Math.min(line + SECCOMP.length, status.length), SECCOMP, 0, SECCOMP.length)) {
                int value = line + SECCOMP.length;
                while (value < status.length && (status[value] == ' ' || status[value] == '\t')) value++;
                return value < status.length && status[value] == '2' && (value + 1 == status.length || status[value + 1] == '\n');
            }
            while (line < status.length && status[line] != '\n') line++;
        }
        return false;
    }

    public boolean isZombie() {
        return state == 'Z' || state == 'X';
    }

    /** True when the command line is a virtiofsd (by program name) listening on exactly this socket path. */
    public boolean isVirtiofsdServing(Path socketPath) {
        return virtiofsdSocket(argv).filter(socketPath.toString()::equals).isPresent();
    }

    /** The socket path a virtiofsd command line (by program name) listens on; empty for any other command line. */
    static Optional<String> virtiofsdSocket(List<String> argv) {
        // the name's test first: a scan asks this of every process on the host
        boolean isVirtiofsd = argv.stream().limit(4).anyMatch(arg -> arg.endsWith("virtiofsd") && Path.of(arg).getFileName() != null
                && Path.of(arg).getFileName().toString().equals("virtiofsd"));
        return isVirtiofsd ? optionValue(argv, "--socket-path").or(() -> optionValue(argv, "--socket")) : Optional.empty();
    }

    /** Value of a long option written either as {@code --name=value} or {@code --name value}. */
    public Optional<String> optionValue(String name) {
        return optionValue(argv, name);
    }

    private static Optional<String> optionValue(List<String> argv, String name) {
        for (int i = 0; i < argv.size(); i++) {
            String arg = argv.get(i);
            if (arg.startsWith(name + "=")) return Optional.of(arg.substring(name.length() + 1));
            if (arg.equals(name) && i + 1 < argv.size()) return Optional.of(argv.get(i + 1));
        }
        return Optional.empty();
    }

    /** Inodes of the sockets this process has open (from the {@code socket:[N]} links in /proc/pid/fd). */
    public Set<Long> socketInodes() {
        Set<Long> inodes = new HashSet<>();
        try (DirectoryStream<Path> fds = Files.newDirectoryStream(PROC.resolve(Long.toString(pid)).resolve("fd"))) {
            for (Path fd : fds) {
                try {
                    Matcher link = SOCKET_LINK.matcher(Files.readSymbolicLink(fd).toString());
                    if (link.matches()) inodes.add(Long.parseLong(link.group(1)));
                } catch (IOException closedMeanwhile) {
                    // the fd was closed between listing and reading: not a socket we care about
                }
            }
        } catch (IOException gone) {
            // the process exited: it holds nothing
        }
        return inodes;
    }

    public String commandLine() {
        return String.join(" ", argv);
    }
}
