package dev.nightshift.agent.git;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.joran.JoranConfigurator;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.LoggingEvent;
import ch.qos.logback.core.ConsoleAppender;
import ch.qos.logback.core.joran.spi.JoranException;

/**
 * The agent's {@code logback.xml}, read into a logging context of its own (what other tests do to
 * the shared one does not count): which lines are written by default, and how they are written.
 */
class LoggingConfigurationTest {

    private final LoggerContext context = new LoggerContext();

    private LoggerContext configured() throws JoranException {
        JoranConfigurator configurator = new JoranConfigurator();
        configurator.setContext(context);
        configurator.doConfigure(LoggingConfigurationTest.class.getResource("/logback.xml"));
        return context;
    }

    @AfterEach
    void stop() {
        context.stop();
    }

    @Test
    void theAgentsAuditLinesAreWrittenByDefaultAndLibrariesOnlyWhenSomethingIsWrong() throws JoranException {
        LoggerContext c = configured();

        // "acting on commit …", each step's summary, the node-updates line, the machine API's calls, the poller's commits.
        for (String audit : List.of("dev.nightshift.agent.reconcile.AcceptedSpecs", "dev.nightshift.agent.reconcile.ReconcilePass",
                "dev.nightshift.agent.run.Agent", "dev.nightshift.agent.nodeupdate.JobNodeUpdater",
                "dev.nightshift.agent.provider.http.HttpMachineProvider", "dev.nightshift.agent.git.SpecPoller")) {
            assertThat(c.getLogger(audit).isInfoEnabled()).as(audit).isTrue();
            assertThat(c.getLogger(audit).isDebugEnabled()).as(audit).isFalse();
        }
        for (String library : List.of("org.eclipse.jgit.transport.TransportHttp", "io.fabric8.kubernetes.client.informers.impl.DefaultSharedIndexInformer",
                "org.apache.sshd.client.SshClient")) {
            assertThat(c.getLogger(library).isInfoEnabled()).as(library).isFalse();
            assertThat(c.getLogger(library).isWarnEnabled()).as(library).isTrue();
        }
    }

    @Test
    void aLogLineAndItsStackTraceAreWrittenScrubbedOfCredentials() throws JoranException {
        LoggerContext c = configured();
        Logger jgit = c.getLogger("org.eclipse.jgit.transport.TransportHttp");
        @SuppressWarnings("unchecked")
        ConsoleAppender<ILoggingEvent> stderr = (ConsoleAppender<ILoggingEvent>) c.getLogger(Logger.ROOT_LOGGER_NAME).getAppender("STDERR");
        IOException cause = new IOException("sent Authorization: Basic dXNlcjpodW50ZXIy to https://me:hunter2@git.example.com/c.git");
        LoggingEvent event = new LoggingEvent(Logger.class.getName(), jgit, Level.WARN, "cannot open {}?access_token={}",
                new IOException("transport failed", cause), new Object[] {"https://ghp_t0k3n@github.com/c.git", "abc123"});

        String written = new String(stderr.getEncoder().encode(event), StandardCharsets.UTF_8);

        assertThat(written).contains("cannot open https://***@github.com/c.git?access_token=***")
                .contains("Authorization: Basic ***", "https://***@git.example.com/c.git")
                .contains("at " + LoggingConfigurationTest.class.getName())
                .doesNotContain("ghp_t0k3n", "abc123", "dXNlcjpodW50ZXIy", "hunter2");
    }
}
