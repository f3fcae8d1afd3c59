package dev.nightshift.agent.git;

import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * Where the specs live.
 *
 * @param url         {@code https://}, {@code ssh://}, {@code git://} or {@code file://}
 * @param ref         a branch, a tag, or a pinned commit (40 hex digits)
 * @param path        the spec directory inside the repository; empty for the root
 * @param cacheDir    where the local bare copy is kept (nothing is ever checked out)
 * @param caFile      for {@code https://}: a PEM file of the CA certificates trusted instead of the JDK's
 *                    (see {@link CaFile}); empty for the JDK's default CAs
 * @param timeout     how long a poll waits for the server to connect or to send anything before it fails
 *                    (whole seconds); without one, a server that stops answering holds the poll, and every
 *                    later one, forever
 * @param verify      which commits may be applied ({@code git.verify}); empty: every commit with valid specs
 */
public record GitSourceConfig(URI url, String ref, String path, GitCredentials credentials, Path cacheDir,
                              Optional<Path> caFile, Duration timeout, Optional<CommitVerification> verify) {

    /** A minute of silence: long for a Git server, short against the poll interval's purpose. */
    public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(60);

    private static final Pattern COMMIT = Pattern.compile("[0-9a-f]{40}");

    public GitSourceConfig {
        String scheme = url.getScheme() == null ? "" : url.getScheme();
        if (!scheme.matches("https|http|ssh|git|file")) {
            throw new IllegalArgumentException("repository URL must be https://, ssh://, git:// or file://, got " + redacted(url));
        }
        credentialsInUrl(url).ifPresent(why -> {
            throw new IllegalArgumentException("the repository URL (git.url, --repo) " + why);
        });
        if (ref.isBlank()) {
            throw new IllegalArgumentException("a branch, tag or commit is needed");
        }
        path = path.replaceAll("^/+|/+$", "");
        if (timeout.toSeconds() < 1) {
            throw new IllegalArgumentException("the Git timeout must be at least 1s, got " + timeout);
        }
        if (caFile.isPresent() && !scheme.equals("https")) {
            throw new IllegalArgumentException("a CA file (" + caFile.get() + ") is only for https:// repositories, got "
                    + redacted(url) + (scheme.equals("ssh") ? "; SSH host keys are checked against knownHostsFile" : ""));
        }
    }

    /** A source that applies every commit with valid specs. */
    public GitSourceConfig(URI url, String ref, String path, GitCredentials credentials, Path cacheDir, Optional<Path> caFile,
                           Duration timeout) {
        this(url, ref, path, credentials, cacheDir, caFile, timeout, Optional.empty());
    }

    /** The same source, applying only the commits {@code verification} allows. */
    public GitSourceConfig verified(CommitVerification verification) {
        return new GitSourceConfig(url, ref, path, credentials, cacheDir, caFile, timeout, Optional.of(verification));
    }

    /** A source with the default timeout. */
    public GitSourceConfig(URI url, String ref, String path, GitCredentials credentials, Path cacheDir, Optional<Path> caFile) {
        this(url, ref, path, credentials, cacheDir, caFile, DEFAULT_TIMEOUT);
    }

    /** A source with the default timeout that trusts the JDK's default CAs for {@code https://}. */
    public GitSourceConfig(URI url, String ref, String path, GitCredentials credentials, Path cacheDir) {
        this(url, ref, path, credentials, cacheDir, Optional.empty());
    }

    public boolean pinnedCommit() {
        return COMMIT.matcher(ref).matches();
    }

    /**
     * Why {@code url} may not name a repository because it carries credentials, or empty. Whatever is
     * before an {@code @} in an {@code https://} URL is a token or a user and password (JGit would then
     * repeat it in every message, into the log and {@code /status}); in an {@code ssh://} URL it is the
     * user's name ({@code ssh://git@host/…}), which is allowed, but not with a password. The reason never
     * repeats the URL's user info.
     */
    public static Optional<String> credentialsInUrl(URI url) {
        String authority = url.getRawAuthority();
        int at = authority == null ? -1 : authority.lastIndexOf('@');
        if (at < 0) {
            return Optional.empty();
        }
        boolean ssh = "ssh".equalsIgnoreCase(url.getScheme());
        if (ssh && authority.substring(0, at).indexOf(':') < 0) {
            return Optional.empty();
        }
        return Optional.of("must not carry " + (ssh ? "a password" : "credentials before an @") + " (" + redacted(url)
                + "): credentials come from files: git.auth.tokenFile (or tokenEnv) and git.auth.user for https://,"
                + " git.auth.sshKeyFile for ssh://");
    }

    /** The URL with any user info removed, for messages. */
    public static String redacted(URI url) {
        String authority = url.getRawAuthority();
        int at = authority == null ? -1 : authority.lastIndexOf('@');
        if (at < 0) {
            return url.toString();
        }
        return url.toString().replace(authority, authority.substring(at + 1));
    }

    public String describe() {
        return redacted(url) + "@" + ref + (path.isEmpty() ? "" : ":" + path);
    }

    /** Default poll interval; each poll waits up to 10% more at random so that replicas do not align. */
    public static final Duration DEFAULT_POLL_INTERVAL = Duration.ofSeconds(60);
}
