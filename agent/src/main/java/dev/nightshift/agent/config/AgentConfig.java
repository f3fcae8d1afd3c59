package dev.nightshift.agent.config;

import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;

/**
 * How the agent runs: where the specs live, which cluster it manages, its HTTP port. Secrets are
 * never values here, only the files or environment variables that hold them.
 *
 * @param gitRef     branch, tag or pinned commit
 * @param gitPath    the spec directory inside the repository
 * @param gitUser    for HTTPS
 * @param tokenFile  for HTTPS; or {@code tokenEnv}
 * @param gitCaFile  for HTTPS: PEM CA certificates trusted instead of the JDK's default CAs
 * @param cacheDir   the local bare copy of the repository
 */
public record AgentConfig(
        Optional<URI> gitUrl,
        String gitRef,
        String gitPath,
        Duration pollInterval,
        Optional<String> gitUser,
        Optional<Path> tokenFile,
        Optional<String> tokenEnv,
        Optional<Path> sshKeyFile,
        Optional<Path> knownHostsFile,
        Optional<Path> gitCaFile,
        Optional<String> cluster,
        int httpPort,
        Optional<Path> webhookSecretFile,
        Optional<String> webhookSecretEnv,
        Path cacheDir,
        boolean dryRun) {

    public static final AgentConfig DEFAULTS = new AgentConfig(Optional.empty(), "main", "", Duration.ofSeconds(60),
            Optional.empty(), Optional.empty(), Optional.empty(), Optional.empty(), Optional.empty(), Optional.empty(),
            Optional.empty(), 9400, Optional.empty(), Optional.empty(), Path.of(System.getProperty("java.io.tmpdir"), "nightshift"),
            false);

    /** Values given on the command line; each one present replaces the file's. */
    public record Overrides(Optional<URI> gitUrl, Optional<String> gitRef, Optional<String> gitPath,
                            Optional<Duration> pollInterval, Optional<String> cluster, Optional<Integer> httpPort,
                            Optional<Path> cacheDir, Optional<Boolean> dryRun, Optional<Path> gitCaFile) {

        public static final Overrides NONE = new Overrides(Optional.empty(), Optional.empty(), Optional.empty(),
                Optional.empty(), Optional.empty(), Optional.empty(), Optional.empty(), Optional.empty());

        /** Without a CA file. */
        public Overrides(Optional<URI> gitUrl, Optional<String> gitRef, Optional<String> gitPath,
                         Optional<Duration> pollInterval, Optional<String> cluster, Optional<Integer> httpPort,
                         Optional<Path> cacheDir, Optional<Boolean> dryRun) {
            this(gitUrl, gitRef, gitPath, pollInterval, cluster, httpPort, cacheDir, dryRun, Optional.empty());
        }
    }

    public AgentConfig with(Overrides o) {
        return new AgentConfig(o.gitUrl().or(this::gitUrl), o.gitRef().orElse(gitRef), o.gitPath().orElse(gitPath),
                o.pollInterval().orElse(pollInterval), gitUser, tokenFile, tokenEnv, sshKeyFile, knownHostsFile,
                o.gitCaFile().or(this::gitCaFile), o.cluster().or(this::cluster), o.httpPort().orElse(httpPort),
                webhookSecretFile, webhookSecretEnv, o.cacheDir().orElse(cacheDir), o.dryRun().orElse(dryRun));
    }
}
