package dev.nightshift.sandbox.demo;

import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import dev.nightshift.cli.JavaCommand;

/**
 * {@code nightshift demo} as a person runs it: the shaded jar in a process of its own, its screen
 * captured to a file. Closing it kills whatever a failed test left running.
 */
final class DemoProcess implements AutoCloseable {

    private static final Path JAR = Path.of(System.getProperty("nightshift.jar", "../cli/target/nightshift.jar"));
    /** The banner's hint, e.g. {@code (kubectl --kubeconfig /tmp/x/kubeconfig get nodes)}. */
    private static final Pattern KUBECONFIG = Pattern.compile("kubectl --kubeconfig (\\S+) get nodes");

    private final Process process;
    private final Path screen;

    private DemoProcess(Process process, Path screen) {
        this.process = process;
        this.screen = screen;
    }

    /** Starts {@code nightshift demo ARGS --dir WORK/demo}, its screen in {@code WORK/demo.out}. */
    static DemoProcess start(Path work, String... args) throws IOException {
        List<String> command = JavaCommand.jar(JAR);
        command.add("demo");
        command.addAll(List.of(args));
        command.addAll(List.of("--dir", work.resolve("demo").toString()));
        Path screen = work.resolve("demo.out");
        return new DemoProcess(new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(screen.toFile()).start(), screen);
    }

    Process process() {
        return process;
    }

    /** What the demo printed so far. */
    String screen() throws IOException {
        return Files.exists(screen) ? Files.readString(screen, StandardCharsets.UTF_8) : "";
    }

    /** The kubeconfig the banner names, once it is printed; fails at once if the demo exits first. */
    Path awaitKubeconfig() {
        return await("the demo prints its kubeconfig").atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(200))
                .failFast("the demo exited", () -> !process.isAlive())
                .until(this::kubeconfig, Optional::isPresent).orElseThrow();
    }

    private Optional<Path> kubeconfig() throws IOException {
        Matcher m = KUBECONFIG.matcher(screen());
        return m.find() ? Optional.of(Path.of(m.group(1))) : Optional.empty();
    }

    @Override
    public void close() {
        // Only when the test failed before it stopped the demo itself.
        if (process.isAlive()) {
            process.descendants().forEach(ProcessHandle::destroyForcibly);
            process.destroyForcibly();
        }
    }
}
