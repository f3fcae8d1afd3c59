package dev.nightshift.agent.provider.http;

import java.net.InetAddress;
import java.net.URI;
import java.net.UnknownHostException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * Where the machine API is and how to reach it ({@code provider.http} in the agent's configuration).
 *
 * @param url       the API's base URL, e.g. {@code http://127.0.0.1:9500}; {@code /v1/...} is appended
 *                  to its path, so {@code https://cloud.example/nightshift} calls
 *                  {@code https://cloud.example/nightshift/v1/...}. No user info, query or fragment;
 *                  {@code http://} only to a loopback address ({@link #tokenInClear}).
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
        tokenInClear(url).ifPresent(why -> {
            throw new IllegalArgumentException(why);
        });
        if (url.getRawQuery() != null || url.getRawFragment() != null) {
            throw new IllegalArgumentException("machine API URL " + url + " must not have a query or fragment");
        }
        if (timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("machine API timeout must be positive, not " + timeout);
        }
    }

    /**
     * Why the bearer token may not be sent to {@code url}, or empty: over plain {@code http://} it
     * would cross the network in clear, readable by anyone on the path, so plain HTTP is only for a
     * loopback address ({@code 127.0.0.0/8}, {@code ::1}, {@code localhost}: an adapter beside the
     * agent, or the sandbox). Decided from the URL's text, never by resolving a name.
     */
    public static Optional<String> tokenInClear(URI url) {
        if (!"http".equalsIgnoreCase(url.getScheme()) || url.getHost() == null || loopback(url.getHost())) {
            return Optional.empty();
        }
        return Optional.of("machine API URL " + withoutUserInfo(url) + " is plain http:// to a host that is not loopback: the"
                + " bearer token would cross the network in clear; use https:// (provider.http.caFile for a private CA),"
                + " or http:// only to 127.0.0.0/8, ::1 or localhost");
    }

    /** Whether {@code host} is {@code localhost} or a loopback address literal; a name is never resolved. */
    static boolean loopback(String host) {
        if (host.equalsIgnoreCase("localhost")) {
            return true;
        }
        String literal = host.startsWith("[") && host.endsWith("]") ? host.substring(1, host.length() - 1) : host;
        boolean ipv4 = literal.matches("\\d{1,3}(\\.\\d{1,3}){3}");
        boolean ipv6 = literal.contains(":") && literal.matches("[0-9a-fA-F:.]+");
        if (!ipv4 && !ipv6) {
            return false;
        }
        try {
            // A literal: parsed, not looked up.
            return InetAddress.getByName(literal).isLoopbackAddress();
        } catch (UnknownHostException e) {
            return false;
        }
    }

    static String withoutUserInfo(URI url) {
        if (url.getRawUserInfo() == null) {
            return url.toString();
        }
        return url.toString().replace(url.getRawUserInfo() + "@", "");
    }
}
