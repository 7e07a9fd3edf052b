package dev.ateom.microvm.sandbox;

import dev.ateom.microvm.systeminfo.spec.SpecViolation;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;

/**
 * The body of {@code POST /v1/sandboxes/{id}/fork}: how many clones and who they are, either each identity
 * ({@code identities}, the clones' ids are generated) or a {@code namePrefix} (clone {@code i} is named and
 * identified {@code <prefix>-<i>}, in the source's namespace). Neither: the prefix is {@code <source id>-fork}.
 */
public record ForkRequest(Integer count, List<IdentitySpec> identities, String namePrefix) {
    /** The most clones one fork makes: a larger fan-out is a loop of forks, each answered on its own. */
    public static final int MAX_COUNT = 64;

    /** What is wrong with the request, field by field; empty when it can run. */
    /** Refuses a request with violations (a 400 naming each), before anything is made. */
    public void requireValid() {
        List<SpecViolation> violations = violations();
        if (!violations.isEmpty()) throw new InvalidSpecException(violations);
    }

    public List<SpecViolation> violations() {
        List<SpecViolation> out = new ArrayList<>();
        if (identities != null && namePrefix != null) {
            out.add(new SpecViolation("identities", "give either identities or namePrefix, not both"));
        }
        Integer n = count != null ? count : identities != null ? Integer.valueOf(identities.size()) : null;
        if (n == null) {
            out.add(new SpecViolation("count", "is required (1 to " + MAX_COUNT + ") unless identities are given"));
        } else if (n < 1 || n > MAX_COUNT) {
            out.add(new SpecViolation("count", "must be between 1 and " + MAX_COUNT + ", was " + n));
        }
        if (identities != null && count != null && identities.size() != count) {
            out.add(new SpecViolation("identities", "has " + identities.size() + " entries but count is " + count));
        }
        if (namePrefix != null && !SandboxSpecValidator.ID.matcher(namePrefix).matches() || namePrefix != null && namePrefix.length() > 58) {
            out.add(new SpecViolation("namePrefix", "must be a lowercase DNS label of at most 58 characters ([a-z0-9-]), was '"
                    + namePrefix + "'"));
        }
        return out;
    }

    /** The clones to make of a sandbox {@code sourceId} in {@code namespace}: id (null: generated) and identity each. */
    public List<ForkedIdentity> clones(String sourceId, String namespace) {
        if (identities != null) {
            return identities.stream().map(identity -> new ForkedIdentity(null, identity)).toList();
        }
        String prefix = namePrefix != null ? namePrefix : sourceId + "-fork";
        return IntStream.rangeClosed(1, count).mapToObj(i -> prefix + "-" + i)
                .map(name -> new ForkedIdentity(name, new IdentitySpec(name, namespace))).toList();
    }

    /** One clone a fork makes. */
    public record ForkedIdentity(String id, IdentitySpec identity) {}
}
