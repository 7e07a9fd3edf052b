package dev.ateom.chv;

import dev.ateom.fixtures.chv.PlayedVersion;
import java.util.stream.Stream;

/**
 * A Cloud Hypervisor the version-specific tests run against: the real binary {@code ATEOM_CLOUD_HYPERVISOR} names
 * (its release is whatever it answers), or the stand-in playing a release, so every row of {@link ChvBehaviour} runs
 * in CI without the real binary.
 *
 * @param played the release the stand-in plays; null for the real binary
 */
record ChvRelease(PlayedVersion played) {
    /** Parameters for {@code @MethodSource("dev.ateom.chv.ChvRelease#underTest")}. */
    static Stream<ChvRelease> underTest() {
        return ChvUnderTest.isReal() ? Stream.of(new ChvRelease(null)) : Stream.of(new ChvRelease(PlayedVersion.V53), new ChvRelease(PlayedVersion.V54));
    }

    /**
     * The row for the VMM started for this release, from its {@code vmm.ping}; the stand-in must answer the release
     * it was asked to play.
     */
    ChvBehaviour behaviourOf(ChvClient chv) {
        String answered = chv.ping().version();
        if (played != null && !played.version().equals(answered)) {
            throw new AssertionError("the stand-in asked to play " + played.version() + " answered vmm.ping with " + answered);
        }
        return ChvBehaviour.of(answered);
    }

    @Override
    public String toString() {
        return played == null ? ChvUnderTest.describe() : "stand-in playing v" + played.version();
    }
}
