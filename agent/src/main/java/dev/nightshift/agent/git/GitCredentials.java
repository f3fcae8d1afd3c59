package dev.nightshift.agent.git;

import java.nio.file.Path;

/** How Nightshift authenticates to the spec repository. */
public sealed interface GitCredentials {

    /** Anonymous: {@code git://}, {@code file://}, or a public HTTPS repository. */
    record None() implements GitCredentials {
    }

    /** HTTPS with a user and a token (a password, or a personal access token). */
    record HttpsToken(String user, Secret token) implements GitCredentials {
    }

    /**
     * SSH with a private key. Host keys are checked against {@code knownHosts}; an unknown or
     * changed key fails the connection.
     */
    record SshKey(Path privateKey, Path knownHosts) implements GitCredentials {
    }
}
