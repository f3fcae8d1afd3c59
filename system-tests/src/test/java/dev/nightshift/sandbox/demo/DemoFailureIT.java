package dev.nightshift.sandbox.demo;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.nightshift.sandbox.cloud.SimulatedMachineProvider;

/**
 * {@code nightshift demo --exit-when-done} on a cloud that fails: the demo ends with 1 as soon as
 * the agent reports the failure, long before the step's timeout, and says which pool failed and why.
 */
class DemoFailureIT {

    /** The default --timeout: a failure must not wait for it. */
    private static final Duration TIMEOUT = Duration.ofSeconds(300);

    @TempDir
    Path tmp;

    private record Run(int exitCode, Duration took, String screen) {
    }

    private Run demo(SimulatedMachineProvider.Behaviour cloud) throws Exception {
        ByteArrayOutputStream screen = new ByteArrayOutputStream();
        try (Demo demo = new Demo(new Demo.Options(0, true, TIMEOUT, Optional.of(tmp)),
                new PrintStream(screen, true, StandardCharsets.UTF_8), cloud)) {
            long start = System.nanoTime();
            int code = demo.run();
            return new Run(code, Duration.ofNanos(System.nanoTime() - start), screen.toString(StandardCharsets.UTF_8));
        }
    }

    @Test
    void aFailedInPlaceUpdateEndsTheDemoWithOneNamingThePoolAndTheNode() throws Exception {
        Run run = demo(new SimulatedMachineProvider.Behaviour(Duration.ofSeconds(3), Duration.ofSeconds(3), Duration.ofSeconds(1),
                0, 1.0));

        assertThat(run.exitCode()).as(run.screen()).isEqualTo(1);
        // Ended by the failure, not by waiting out the timeout (no wall-clock bound beyond that: the CI machine's load
        // made 90 s take 113 s once; the FAILED line below says why it ended).
        assertThat(run.took()).as(run.screen()).isLessThan(TIMEOUT);
        assertThat(run.screen()).containsPattern(
                "FAILED: the image bump did not complete: pool gpu-worker: the in-place update of node gpu-worker-\\d failed after"
                        + " [0-9.]+s \\(NodeUpdateFailed\\)")
                .doesNotContain("every pool runs gardenlinux 1632.0.0");
    }

    @Test
    void aMachineThatNeverRegistersEndsTheDemoWithOneAfterTheCreationTimeout() throws Exception {
        Run run = demo(new SimulatedMachineProvider.Behaviour(Duration.ofSeconds(3), Duration.ofSeconds(3), Duration.ofSeconds(1),
                1.0, 0));

        assertThat(run.exitCode()).as(run.screen()).isEqualTo(1);
        // Ended by the failure, not by waiting out the timeout (no wall-clock bound beyond that: the CI machine's load
        // made 90 s take 113 s once; the FAILED line below says why it ended).
        assertThat(run.took()).as(run.screen()).isLessThan(TIMEOUT);
        assertThat(run.screen()).containsPattern("FAILED: the image bump did not complete: pool bastion: 1 machine\\(s\\) failed: a new"
                + " machine not Ready within creationTimeout.*\\(MachineFailed\\)");
    }
}
