package dev.ateom.chv;

import java.util.List;

/** CHV answered 404: the VM (or its config) does not exist, or an unknown endpoint. */
public final class ChvNotFoundException extends ChvApiException {
    ChvNotFoundException(String endpoint, List<String> chain) {
        super(endpoint, 404, chain);
    }
}
