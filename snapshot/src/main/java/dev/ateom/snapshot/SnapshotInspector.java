package dev.ateom.snapshot;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;
import java.util.stream.Stream;

/** Looks into committed snapshots: summary for inspect, full verification, and proof that no system-info is inside. */
public final class SnapshotInspector {
    private SnapshotInspector() {
    }

    /** A share as the snapshot's config.json wires it. */
    public record Share(String tag, String kind, String socket) {
    }

    /**
     * @param durableArchiveBytes size of durable.tar on disk
     * @param allocatedBytes      disk the whole snapshot really uses (sparse memory-ranges counted by its data)
     */
    public record Summary(Manifest manifest, List<Share> shares, DiskUsage memoryRanges, long durableArchiveEntries,
                          long durableArchiveBytes, long apparentBytes, long allocatedBytes) {
    }

    /** Empty problems means every file matched its size and sha256 and the archive read to the end. */
    public record Verification(List<String> problems, long bytesHashed, long archiveEntriesRead) {
        public boolean ok() {
            return problems.isEmpty();
        }
    }

    /** Empty findings means nothing from the system-info share was found. */
    public record SystemInfoCheck(List<String> findings, long archiveEntriesChecked, int systemInfoFilesCompared) {
        public boolean clean() {
            return findings.isEmpty();
        }
    }

    public static Summary summarize(Snapshot snapshot) throws IOException {
        SnapshotLayout layout = snapshot.layout();
        Manifest manifest = snapshot.manifest();
        ObjectNode config = ChvConfigRewriter.read(layout.chvConfig());
        List<Share> shares = new ArrayList<>();
        config.path("fs").forEach(fs -> shares.add(new Share(fs.path("tag").asText(),
                manifest.shares().getOrDefault(fs.path("tag").asText(), "unknown"), fs.path("socket").asText())));
        DiskUsage memory = DiskUsage.of(layout.memoryRanges());
        long apparent = 0;
        long allocated = 0;
        for (String file : SnapshotLayout.CONTENT_FILES) {
            DiskUsage usage = DiskUsage.of(layout.directory().resolve(file));
            apparent += usage.apparentBytes();
            allocated += usage.allocatedBytes();
        }
        long manifestSize = Files.size(layout.manifest());
        return new Summary(manifest, shares, memory, manifest.durableArchive().entries(), Files.size(layout.durableArchive()),
                apparent + manifestSize, allocated + manifestSize);
    }

    /**
     * Hashes every file against the manifest (only the snapshot's own file names, opened as regular
     * files without following links), looks for extra files, and reads durable.tar to its end with
     * the entry rules extraction applies: no problems means a restore will work.
     */
    public static Verification verify(Snapshot snapshot) throws IOException {
        return verify(snapshot, Map.of());
    }

    /**
     * As {@link #verify(Snapshot)}, with content digests the caller computed from the very bytes it wrote into the
     * snapshot's files (path to digest, the way each manifest entry names it): those files are not read and hashed
     * again. A pull digests each file from its verified chunks while it places them. Everything else is checked as usual.
     */
    public static Verification verify(Snapshot snapshot, Map<String, String> knownDigests) throws IOException {
        SnapshotLayout layout = snapshot.layout();
        List<String> problems = new ArrayList<>(unexpectedFiles(layout));
        long hashed = 0;
        for (String expected : SnapshotLayout.CONTENT_FILES) {
            if (snapshot.manifest().file(expected).isEmpty()) {
                problems.add(expected + " is not listed in the manifest");
            }
        }
        for (Manifest.FileEntry file : snapshot.manifest().files()) {
            if (!SnapshotLayout.CONTENT_FILES.contains(file.path())) {
                continue; // reported above: never resolved, whatever it names
            }
            Path path = layout.directory().resolve(file.path());
            if (!Files.isRegularFile(path, LinkOption.NOFOLLOW_LINKS)) {
                problems.add(file.path() + " is missing");
                continue;
            }
            long size = Files.size(path);
            if (size != file.size()) {
                problems.add(file.path() + " is " + size + " bytes, the manifest says " + file.size());
                continue;
            }
            String known = knownDigests.get(file.path());
            String sha = known != null ? known : file.digestOf(path);
            hashed += known != null ? 0 : size;
            if (!sha.equals(file.sha256())) {
                problems.add(file.path() + " has " + (file.digest() == null ? "sha256" : file.digest()) + " " + sha
                        + ", the manifest says " + file.sha256());
            }
        }
        try {
            SnapshotStore.requireKnownFiles(snapshot.id(), snapshot.manifest());
        } catch (SnapshotFormatException e) {
            problems.add(e.getMessage());
        }
        long entries = 0;
        try {
            entries = ArchiveEntryRules.check(layout.durableArchive(), snapshot.manifest().durableArchive().entries());
            if (entries != snapshot.manifest().durableArchive().entries()) {
                problems.add("durable.tar has " + entries + " entries, the manifest says " + snapshot.manifest().durableArchive().entries());
            }
        } catch (UnsafeArchiveEntryException e) {
            problems.add("durable.tar would not extract: " + e.getMessage());
        } catch (IOException | RuntimeException e) {
            problems.add("durable.tar cannot be read to its end: " + e.getMessage());
        }
        return new Verification(List.copyOf(problems), hashed, entries);
    }

    /**
     * Checks that nothing of the system-info share is in the snapshot: no files beside the expected
     * ones, and (when the source sandbox's system-info dir is given) no archived file whose content
     * equals a non-empty system-info file.
     */
    public static SystemInfoCheck checkNoSystemInfo(Snapshot snapshot, Optional<Path> systemInfoDir) throws IOException {
        List<String> findings = new ArrayList<>(unexpectedFiles(snapshot.layout()));
        Map<String, String> systemInfoByHash = new HashMap<>();
        if (systemInfoDir.isPresent() && Files.isDirectory(systemInfoDir.get())) {
            try (Stream<Path> walk = Files.walk(systemInfoDir.get())) {
                for (Path file : walk.filter(p -> Files.isRegularFile(p, LinkOption.NOFOLLOW_LINKS)).toList()) {
                    if (Files.size(file) > 0) {
                        systemInfoByHash.put(Sha256.of(file), systemInfoDir.get().relativize(file).toString());
                    }
                }
            }
        }
        long checked = DurableArchive.scan(snapshot.layout().durableArchive(), (info, content) -> {
            if (!systemInfoByHash.isEmpty() && info.regularFile() && info.realSize() > 0) {
                String match = systemInfoByHash.get(hash(content));
                if (match != null) {
                    findings.add("durable.tar entry '" + info.name() + "' has the content of system-info file '" + match + "'");
                }
            }
        }).entries();
        return new SystemInfoCheck(List.copyOf(findings), checked, systemInfoByHash.size());
    }

    private static String hash(InputStream content) throws IOException {
        MessageDigest digest = Sha256.newDigest();
        byte[] buffer = new byte[64 * 1024];
        int read;
        while ((read = content.read(buffer)) >= 0) {
            digest.update(buffer, 0, read);
        }
        return HexFormat.of().formatHex(digest.digest());
    }

    private static List<String> unexpectedFiles(SnapshotLayout layout) throws IOException {
        TreeSet<String> names = new TreeSet<>();
        SnapshotStaging.collect(layout.directory(), "", names);
        names.removeAll(SnapshotLayout.CONTENT_FILES);
        names.remove(SnapshotLayout.MANIFEST);
        names.remove(SnapshotLayout.CHV_DIR + "/");
        return names.stream().map(name -> "unexpected file in the snapshot: " + name).toList();
    }
}
