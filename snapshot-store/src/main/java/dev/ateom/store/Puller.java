package dev.ateom.store;

import dev.ateom.snapshot.Manifest;
import dev.ateom.snapshot.ManifestCodec;
import dev.ateom.snapshot.MemoryRangesCompactor;
import dev.ateom.snapshot.Snapshot;
import dev.ateom.snapshot.SnapshotInspector;
import dev.ateom.snapshot.SnapshotLayout;
import dev.ateom.snapshot.SnapshotStore;
import dev.ateom.snapshot.TreeDeleter;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermission;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Supplier;

/**
 * Pulls one snapshot into the local store: reads the manifest, checks the host, fetches each distinct chunk
 * (from the cache or the store, in parallel), verifies it against its hash, writes it at every offset that uses
 * it into a hidden staging dir (memory-ranges sparse: only non-zero pages are written, so holes stay holes),
 * then runs the snapshot module's own verification and renames the dir into place. The files' manifest digests are
 * computed from the verified chunks while they are placed ({@link PlacedFileDigest}), so that verification does
 * not read and hash the assembled files again. Any failure deletes the staging dir: a restore never sees a partial
 * or unverified snapshot.
 */
final class Puller {
    /** The snapshot module's prefix for dirs being built: invisible to list/get and swept when the local store opens. */
    private static final String STAGING_PREFIX = ".staging-";
    private static final int PAGE = MemoryRangesCompactor.PAGE_SIZE;
    private static final byte[] ZERO_PAGE = new byte[PAGE];

    private final S3Objects objects;
    private final StoreKeys keys;
    private final ChunkCache cache;
    private final ExecutorService pool;
    private final int parallelism;
    private final Supplier<CpuProfile> hostCpu;
    private final Map<String, Object> locks = new ConcurrentHashMap<>();

    Puller(S3Objects objects, StoreKeys keys, ChunkCache cache, ExecutorService pool, int parallelism, Supplier<CpuProfile> hostCpu) {
        this.objects = objects;
        this.keys = keys;
        this.cache = cache;
        this.pool = pool;
        this.parallelism = parallelism;
        this.hostCpu = hostCpu;
    }

    PullResult pull(String snapshotId, SnapshotStore local, PullOptions options, PullListener listener) throws IOException {
        synchronized (locks.computeIfAbsent(snapshotId, id -> new Object())) {
            TransferProgress<PullStatus> progress = TransferProgress.pull(snapshotId, listener);
            try {
                return run(snapshotId, local, options, progress);
            } catch (IOException | RuntimeException | Error e) {
                progress.fail(e);
                throw e;
            }
        }
    }

    private PullResult run(String snapshotId, SnapshotStore local, PullOptions options, TransferProgress<PullStatus> progress)
            throws IOException {
        Optional<Snapshot> present = local.get(snapshotId);
        if (present.isPresent()) {
            progress.start(0);
            return new PullResult(present.get(), progress.finish(), true, List.of());
        }
        byte[] bytes = objects.get(keys.manifest(snapshotId), RemoteManifestCodec.MAX_MANIFEST_BYTES)
                .orElseThrow(() -> new RemoteSnapshotNotFoundException(snapshotId));
        RemoteManifest remote = RemoteManifestCodec.read(snapshotId, bytes);
        List<HostMismatch> mismatches = HostCompatibility.check(remote.host(), hostCpu.get(), options.hostChvVersion());
        List<HostMismatch> refused = mismatches.stream().filter(m -> !options.allows(m)).toList();
        if (!refused.isEmpty()) {
            throw new HostMismatchException(snapshotId, refused);
        }
        Manifest manifest = RemoteManifestCodec.local(remote);
        requireRoom(remote, local.snapshotsDirectory());

        Map<ChunkHash, Need> needs = needs(remote);
        progress.start(needs.values().stream().mapToLong(Need::length).sum());
        Path staging = local.snapshotsDirectory().resolve(STAGING_PREFIX + snapshotId + "-pull-"
                + Long.toHexString(ThreadLocalRandom.current().nextLong()));
        boolean published = false;
        try {
            Files.createDirectory(staging);
            SnapshotLayout layout = new SnapshotLayout(staging);
            Files.createDirectory(layout.chvDirectory());
            Map<String, PlacedFileDigest> digests = digests(remote, manifest, layout);
            assemble(snapshotId, remote, layout, needs, digests, progress);
            Files.write(layout.manifest(), ManifestCodec.toBytes(manifest));
            for (String path : SnapshotLayout.CONTENT_FILES) {
                makeReadOnly(layout.directory().resolve(path));
            }
            makeReadOnly(layout.manifest());
            Durability.syncDirectory(layout.chvDirectory());
            Durability.syncDirectory(staging);
            Snapshot staged = new Snapshot(snapshotId, layout, ManifestCodec.read(layout.manifest()));
            Map<String, String> digested = new HashMap<>();
            for (Map.Entry<String, PlacedFileDigest> digest : digests.entrySet()) {
                digest.getValue().finish().ifPresent(sha -> digested.put(digest.getKey(), sha));
            }
            SnapshotInspector.Verification verification = SnapshotInspector.verify(staged, digested);
            if (!verification.ok()) {
                throw new PulledSnapshotInvalidException(snapshotId, verification.problems());
            }
            Path target = local.snapshotsDirectory().resolve(snapshotId);
            if (!Files.exists(target, LinkOption.NOFOLLOW_LINKS)) {
                Files.move(staging, target, StandardCopyOption.ATOMIC_MOVE);
                published = true;
                Durability.syncDirectory(local.snapshotsDirectory());
            }
        } finally {
            if (!published) {
                TreeDeleter.delete(staging);
            }
        }
        Snapshot snapshot = local.get(snapshotId).orElseThrow(() -> new IOException("pulled snapshot " + snapshotId + " vanished"));
        return new PullResult(snapshot, progress.finish(), false, mismatches);
    }

    /**
     * The snapshot's files must fit on the state filesystem, holes included: a manifest may claim any size (a terabyte
     * of one chunk listed again and again), and a snapshot this host could not even write back on its next suspend is
     * no use here. Checked before the staging dir exists.
     */
    private static void requireRoom(RemoteManifest remote, Path snapshots) throws IOException {
        long files = 0;
        long data = 0;
        for (RemoteFile file : remote.files()) {
            files = Math.addExact(files, file.size());
            for (ChunkRef ref : file.chunks()) {
                data += ref.isHole() ? 0 : ref.length();
            }
        }
        long usable = Files.getFileStore(snapshots).getUsableSpace();
        if (files > usable) {
            throw new SnapshotTooLargeException(remote.snapshotId(), files, data, usable);
        }
    }

    /** Where each distinct chunk goes. */
    private record Placement(String path, long offset) {
    }

    private record Need(int length, List<Placement> placements) {
    }

    private static Map<ChunkHash, Need> needs(RemoteManifest remote) throws RemoteFormatException {
        Map<ChunkHash, Need> needs = new LinkedHashMap<>();
        for (RemoteFile file : remote.files()) {
            for (ChunkRef ref : file.chunks()) {
                if (ref.isHole()) {
                    continue;
                }
                ChunkHash hash = ref.chunkHash().orElseThrow();
                Need need = needs.computeIfAbsent(hash, h -> new Need((int) ref.length(), new ArrayList<>()));
                if (need.length() != ref.length()) {
                    throw new RemoteFormatException("remote manifest of " + remote.snapshotId() + " uses chunk " + hash
                            + " with lengths " + need.length() + " and " + ref.length());
                }
                need.placements().add(new Placement(file.path(), ref.offset()));
            }
        }
        return needs;
    }

    /** One digest per file the local manifest lists, fed with the remote manifest's holes now and with chunks as they are placed. */
    private static Map<String, PlacedFileDigest> digests(RemoteManifest remote, Manifest manifest, SnapshotLayout layout) throws IOException {
        Map<String, PlacedFileDigest> digests = new HashMap<>();
        for (RemoteFile file : remote.files()) {
            Optional<Manifest.FileEntry> entry = manifest.file(file.path());
            if (entry.isEmpty()) {
                continue; // the verification reports it
            }
            PlacedFileDigest digest = PlacedFileDigest.of(entry.get(), layout.directory().resolve(file.path()));
            for (ChunkRef ref : file.chunks()) {
                if (ref.isHole()) {
                    digest.hole(ref.offset(), ref.length());
                }
            }
            digests.put(file.path(), digest);
        }
        return digests;
    }

    private void assemble(String snapshotId, RemoteManifest remote, SnapshotLayout layout, Map<ChunkHash, Need> needs,
                          Map<String, PlacedFileDigest> digests, TransferProgress<PullStatus> progress) throws IOException {
        Map<String, FileChannel> channels = new HashMap<>();
        try (ChunkCache.Pin _ = cache.pin(needs.keySet().stream().filter(cache::contains).toList())) {
            for (RemoteFile file : remote.files()) {
                try (RandomAccessFile raf = new RandomAccessFile(layout.directory().resolve(file.path()).toFile(), "rw")) {
                    raf.setLength(file.size()); // all holes until written
                }
                channels.put(file.path(), FileChannel.open(layout.directory().resolve(file.path()), Set.of(StandardOpenOption.WRITE)));
            }
            try (BoundedTasks tasks = new BoundedTasks(pool, parallelism)) {
                for (Map.Entry<ChunkHash, Need> entry : needs.entrySet()) {
                    tasks.submit(() -> place(snapshotId, entry.getKey(), entry.getValue(), channels, digests, progress));
                }
                tasks.awaitAll();
            }
            for (FileChannel channel : channels.values()) {
                channel.force(true);
            }
        } finally {
            for (FileChannel channel : channels.values()) {
                channel.close();
            }
        }
    }

    private void place(String snapshotId, ChunkHash hash, Need need, Map<String, FileChannel> channels,
                       Map<String, PlacedFileDigest> digests, TransferProgress<PullStatus> progress) throws IOException {
        byte[] plain = cache.read(hash, need.length()).orElse(null);
        if (plain != null) {
            progress.skipped(need.length());
        } else {
            byte[] frame;
            try {
                frame = objects.get(keys.chunk(hash), ChunkCodec.maxFrameBytes(need.length()))
                        .orElseThrow(() -> new ChunkMissingException(hash, snapshotId));
            } catch (RemoteFormatException oversized) {
                throw new ChunkCorruptException(hash, oversized.getMessage());
            }
            plain = ChunkCodec.decompressVerified(hash, frame, need.length());
            cache.put(hash, frame);
            progress.moved(need.length(), frame.length);
        }
        for (Placement placement : need.placements()) {
            FileChannel channel = channels.get(placement.path());
            if (placement.path().equals(SnapshotLayout.MEMORY_RANGES)) {
                writeNonZeroPages(channel, plain, placement.offset());
            } else {
                writeFully(channel, plain, 0, plain.length, placement.offset());
            }
            PlacedFileDigest digest = digests.get(placement.path());
            if (digest != null) {
                digest.placed(placement.offset(), plain, plain.length);
            }
        }
    }

    /** Writes runs of pages that are not all zero; zero pages stay holes, as the snapshot module keeps them. */
    private static void writeNonZeroPages(FileChannel channel, byte[] data, long offset) throws IOException {
        int runStart = -1;
        for (int page = 0; page < data.length; page += PAGE) {
            int end = Math.min(page + PAGE, data.length);
            boolean zero = isZero(data, page, end);
            if (!zero && runStart < 0) {
                runStart = page;
            } else if (zero && runStart >= 0) {
                writeFully(channel, data, runStart, page - runStart, offset + runStart);
                runStart = -1;
            }
        }
        if (runStart >= 0) {
            writeFully(channel, data, runStart, data.length - runStart, offset + runStart);
        }
    }

    private static boolean isZero(byte[] data, int from, int to) {
        return Arrays.mismatch(data, from, to, ZERO_PAGE, 0, to - from) < 0;
    }

    private static void writeFully(FileChannel channel, byte[] data, int from, int length, long position) throws IOException {
        ByteBuffer buffer = ByteBuffer.wrap(data, from, length);
        while (buffer.hasRemaining()) {
            channel.write(buffer, position + buffer.position() - from);
        }
    }

    /** Pulled files are committed-snapshot files: read-only for all, like the snapshot module leaves its own (0444). */
    private static void makeReadOnly(Path path) throws IOException {
        Files.setPosixFilePermissions(path, Set.of(PosixFilePermission.OWNER_READ, PosixFilePermission.GROUP_READ,
                PosixFilePermission.OTHERS_READ));
    }
}
