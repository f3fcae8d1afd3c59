package dev.nightshift.agent.run;

import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;

import dev.nightshift.agent.config.AgentConfig;

/** The configuration the tests run an agent with: the defaults, with what a test's own world decides. */
public final class TestAgentConfig {

    /** Polls quickly enough for a test to see a push at once, with no jitter worth mentioning. */
    public static final Duration QUICK_POLLS = Duration.ofMillis(500);

    private TestAgentConfig() {
    }

    /** An agent polling {@code main} of {@code gitUrl} (specs at its root), on a free HTTP port, caching in {@code cacheDir}. */
    public static AgentConfig of(URI gitUrl, String cluster, Duration pollInterval, Path cacheDir) {
        return AgentConfig.DEFAULTS.with(new AgentConfig.Overrides(Optional.of(gitUrl), Optional.of("main"), Optional.of(""),
                Optional.of(pollInterval), Optional.of(cluster), Optional.of(0), Optional.of(cacheDir), Optional.of(false)));
    }

    /** The same polling {@code gitUrl} every {@link #QUICK_POLLS}. */
    public static AgentConfig of(String gitUrl, String cluster, Path cacheDir) {
        return of(URI.create(gitUrl), cluster, QUICK_POLLS, cacheDir);
    }
}
