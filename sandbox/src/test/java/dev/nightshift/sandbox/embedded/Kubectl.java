package dev.nightshift.sandbox.embedded;

import static org.assertj.core.api.Assertions.fail;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * A real kubectl, as a person running the demo uses it. It must be installed (Debian's
 * {@code kubernetes-client}; .ci/run installs it): its absence fails the test, never skips it.
 */
public final class Kubectl {

    /** What one kubectl run printed. */
    public record Run(int exitCode, String stdout, String stderr) {
    }

    private Kubectl() {
    }

    private static Path binary() {
        Optional<Path> found = Optional.ofNullable(System.getenv("PATH")).stream()
                .flatMap(path -> List.of(path.split(File.pathSeparator)).stream())
                .map(dir -> Path.of(dir, "kubectl"))
                .filter(Files::isExecutable)
                .findFirst();
        if (found.isEmpty()) {
            fail("kubectl is not on the PATH: install Debian's kubernetes-client (apt-get install -y kubernetes-client);"
                    + " .ci/run installs it");
        }
        return found.get();
    }

    /** Runs kubectl against {@code kubeconfig}, with {@code work} as its home, cache and output place. */
    public static Run run(Path work, Path kubeconfig, String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of(binary().toString(), "--kubeconfig", kubeconfig.toString(),
                "--cache-dir", work.resolve("kubectl-cache").toString(), "--request-timeout", "20s"));
        command.addAll(List.of(args));
        Path out = work.resolve("kubectl.out");
        Path err = work.resolve("kubectl.err");
        ProcessBuilder builder = new ProcessBuilder(command).redirectOutput(out.toFile()).redirectError(err.toFile());
        // A home of its own, so that nothing from the user's ~/.kube takes part or is written to.
        builder.environment().put("HOME", work.toString());
        builder.environment().remove("KUBECONFIG");
        Process process = builder.start();
        if (!process.waitFor(60, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            fail("kubectl %s did not finish in 60 s", String.join(" ", args));
        }
        return new Run(process.exitValue(), Files.readString(out, StandardCharsets.UTF_8), Files.readString(err, StandardCharsets.UTF_8));
    }
}
