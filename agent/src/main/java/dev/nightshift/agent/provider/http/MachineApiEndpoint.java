package dev.nightshift.agent.provider.http;

import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * Where the machine API is and how to reach it ({@code provider.http} in the agent's configuration).
 *
 * @param url       the API's base URL, e.g. {@code http://127.0.0.1:9500}; {@code /v1/...} is appended
 *                  to its path, so {@code https://cloud.example/nightshift} calls
 *                  {@code https://cloud.example/nightshift/v1/...}. No user info, query or fragment.
 * @param tokenFile the bearer token, read on every request (a rotated token is used at once);
 *                  surrounding white space, such as a trailing newline, is dropped
 * @param caFile    PEM CA certificates trusted instead of the JDK's for {@code https} (see
 *                  {@link dev.nightshift.agent.git.CaFile}); empty for the JDK's default CAs
 * @param timeout   for connecting and for each request's answer
 */
public record MachineApiEndpoint(URI url, Path tokenFile, Optional<Path> caFile, Duration timeout) {

    public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(30);

    public MachineApiEndpoint {
        Objects.requireNonNull(url, "url");
        Objects.requireNonNull(tokenFile, "tokenFile");
        Objects.requireNonNull(caFile, "caFile");
        Objects.requireNonNull(timeout, "timeout");
        String scheme = url.getScheme();
        if (!"http".equalsIgnoreCase(scheme) && !"https".equalsIgnoreCase(scheme) || url.getHost() == null) {
            throw new IllegalArgumentException("machine API URL " + withoutUserInfo(url) + " must be http:// or https:// with a host");
        }
        if (url.getRawUserInfo() != null) {
            // Said without the user info itself: it may be a password.
            throw new IllegalArgumentException("machine API URL " + withoutUserInfo(url)
                    + " must not carry user info; the token comes from the token file");
        }
        if (url.getRawQuery() != null || url.getRawFragment() != null) {
            throw new IllegalArgumentException("machine API URL " + url + " must not have a query or fragment");
        }
        if (timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("machine API timeout must be positive, not " + timeout);
        }
    }

    static String withoutUserInfo(URI url) {
        if (url.getRawUserInfo() == null) {
            return url.toString();
        }
        return url.toString().replace(url.getRawUserInfo() + "@", "");
    }
}
