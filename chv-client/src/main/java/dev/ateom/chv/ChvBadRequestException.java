package dev.ateom.chv;

import java.util.List;

/** CHV answered 400: malformed or invalid request, or a config CHV refuses to boot. */
public final class ChvBadRequestException extends ChvApiException {
    ChvBadRequestException(String endpoint, List<String> chain) {
        super(endpoint, 400, chain);
    }
}
