package dev.ateom.chv;

import java.util.List;

/** CHV answered 409: a device identifier is not unique. */
public final class ChvConflictException extends ChvApiException {
    ChvConflictException(String endpoint, List<String> chain) {
        super(endpoint, 409, chain);
    }
}
