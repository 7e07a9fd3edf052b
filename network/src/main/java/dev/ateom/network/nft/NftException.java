package dev.ateom.network.nft;

import java.io.IOException;

/** nftables refused a command; the message carries libnftables' own error text. */
public final class NftException extends IOException {
    NftException(String message) {
        super(message);
    }
}
