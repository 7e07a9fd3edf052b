package dev.ateom.network;

/**
 * Every failure of the network slots, typed by what the caller should tell its own caller: bad input
 * ({@link InvalidNetworkInputException}), a bad daemon option ({@link NetworkConfigException}), no free slot
 * ({@link PoolExhaustedException}), or a host operation that failed ({@link NetworkSetupException}).
 */
public abstract sealed class NetworkException extends RuntimeException
        permits InvalidNetworkInputException, NetworkConfigException, PoolExhaustedException, NetworkSetupException {

    NetworkException(String message, Throwable cause) {
        super(message, cause);
    }
}
