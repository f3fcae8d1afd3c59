package dev.nightshift.sandbox;

import static org.assertj.core.api.Assertions.fail;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.nightshift.cli.JavaCommand;

/**
 * {@code nightshift sandbox} as a user runs it, for end-to-end tests: the built jar in a process
 * of its own, started on a spec directory, and what its {@code --info} file says once it runs.
 * Pushes go through the real {@code git} binary from the sandbox's clone; {@code git} must be
 * installed: its absence fails the test, never skips it.
 */
public final class SandboxProcess implements AutoCloseable {

    public static final Path JAR = Path.of(System.getProperty("nightshift.jar", "../cli/target/nightshift.jar"));
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final HttpClient HTTP = HttpClient.newHttpClient();

    /**
     * What {@code --info} wrote: where the sandbox's parts are; {@code repository} and
     * {@code workingClone} null without a spec, {@code agent} null with {@code --no-agent},
     * {@code agentConfig} (the configuration file for {@code nightshift run --config}) null but with
     * {@code --no-agent} and a spec.
     */
    public record Info(URI apiServer, Path kubeconfig, Path repository, Path workingClone, URI agent, URI machineApi,
                       Path machineApiTokenFile, Path agentConfig) {

        /** The machine API's bearer token. */
        public String machineApiToken() throws IOException {
            return Files.readString(machineApiTokenFile, StandardCharsets.UTF_8).strip();
        }
    }

    /** A run of the jar that ended by itself. */
    public record Ended(int exitCode, String stdout, String stderr) {
    }

    private final Process process;
    private final Path screen;
    private final Path work;
    private final Info info;

    private SandboxProcess(Process process, Path screen, Path work, Info info) {
        this.process = process;
        this.screen = screen;
        this.work = work;
        this.info = info;
    }

    /**
     * Starts {@code sandbox --spec specDir} with its directory, info file and output under {@code work},
     * any free HTTP port, and {@code options} (e.g. {@code --unstamped}); returns once the info file is written.
     */
    public static SandboxProcess start(Path work, Path specDir, String... options) throws IOException {
        return start(work, Optional.of(specDir), options);
    }

    /** {@link #start(Path, Path, String...)}, without {@code --spec} when {@code specDir} is empty (with {@code --no-agent}). */
    public static SandboxProcess start(Path work, Optional<Path> specDir, String... options) throws IOException {
        Path infoFile = work.resolve("sandbox-info.json");
        Path screen = work.resolve("sandbox.out");
        Files.createDirectories(work);
        Process process = new ProcessBuilder(command(specDir, work.resolve("sandbox"), infoFile, options))
                .redirectErrorStream(true).redirectOutput(screen.toFile()).start();
        try {
            await("the sandbox writes " + infoFile).atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(200))
                    .failFast("the sandbox exited; it printed: " + read(screen), () -> !process.isAlive())
                    .until(() -> Files.exists(infoFile));
            JsonNode json = JSON.readTree(infoFile.toFile());
            Info info = new Info(URI.create(json.get("apiServer").asText()), Path.of(json.get("kubeconfig").asText()),
                    nullable(json, "repository", Path::of), nullable(json, "clone", Path::of), nullable(json, "agent", URI::create),
                    URI.create(json.get("machineApi").asText()), Path.of(json.get("machineApiTokenFile").asText()),
                    nullable(json, "agentConfig", Path::of));
            return new SandboxProcess(process, screen, work, info);
        } catch (IOException | RuntimeException | Error e) {
            stop(process);
            throw e;
        }
    }

    /** The value of a key every info file has, null when the sandbox has no such part; a missing key fails. */
    private static <T> T nullable(JsonNode info, String key, java.util.function.Function<String, T> parse) {
        if (!info.has(key)) {
            throw new AssertionError("the info file has no key " + key + ": " + info);
        }
        return info.get(key).isNull() ? null : parse.apply(info.get(key).asText());
    }

    /** Runs {@code sandbox --spec specDir} expecting it to end by itself (an invalid spec), within 60 s. */
    public static Ended runToEnd(Path work, Path specDir, String... options) throws IOException, InterruptedException {
        Path out = work.resolve("sandbox.out");
        Path err = work.resolve("sandbox.err");
        Files.createDirectories(work);
        Process process = new ProcessBuilder(command(Optional.of(specDir), work.resolve("sandbox"), work.resolve("sandbox-info.json"),
                options))
                .redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        if (!process.waitFor(60, TimeUnit.SECONDS)) {
            stop(process);
            fail("the sandbox did not end within 60 s; it printed: %s %s", read(out), read(err));
        }
        return new Ended(process.exitValue(), read(out), read(err));
    }

    private static List<String> command(Optional<Path> specDir, Path dir, Path infoFile, String... options) {
        List<String> command = JavaCommand.jar(JAR);
        command.add("sandbox");
        specDir.ifPresent(spec -> command.addAll(List.of("--spec", spec.toString())));
        command.addAll(List.of("--dir", dir.toString(), "--http-port", "0", "--info", infoFile.toString()));
        command.addAll(List.of(options));
        return command;
    }

    public Info info() {
        return info;
    }

    /** What the sandbox printed so far (banner, steps, progress bars, logs). */
    public String output() throws IOException {
        return read(screen);
    }

    /** {@code METHOD path} of the sandbox's machine API with its token; {@code body} null for none. */
    public HttpResponse<String> machineApi(String method, String path, String body) throws IOException, InterruptedException {
        return machineApi(method, path, body, null);
    }

    /** {@link #machineApi(String, String, String)} with an {@code Idempotency-Key} (none when null), waiting up to 60 s for the answer. */
    public HttpResponse<String> machineApi(String method, String path, String body, String idempotencyKey)
            throws IOException, InterruptedException {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(info.machineApi() + path)).timeout(Duration.ofSeconds(60))
                .header("Authorization", "Bearer " + info.machineApiToken())
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        if (idempotencyKey != null) {
            request.header("Idempotency-Key", idempotencyKey);
        }
        return HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    /** The agent's {@code GET /status}. */
    public JsonNode status() throws IOException, InterruptedException {
        HttpResponse<String> response = HTTP.send(HttpRequest.newBuilder(info.agent().resolve("/status"))
                .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
        return JSON.readTree(response.body());
    }

    /**
     * Runs the real {@code git} in the sandbox's clone with a home of its own (nothing from the
     * user's configuration takes part) and an author; returns its standard output, failing the
     * test when it exits other than 0.
     */
    public String git(String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of("git", "-c", "user.name=sandbox test", "-c", "user.email=test@nightshift.dev"));
        command.addAll(List.of(args));
        Path out = work.resolve("git.out");
        Path err = work.resolve("git.err");
        ProcessBuilder builder = new ProcessBuilder(command).directory(info.workingClone().toFile())
                .redirectOutput(out.toFile()).redirectError(err.toFile());
        builder.environment().put("HOME", work.toString());
        builder.environment().put("GIT_CONFIG_NOSYSTEM", "1");
        Process git;
        try {
            git = builder.start();
        } catch (IOException e) {
            return fail("git is not installed (apt-get install -y git): %s", e.getMessage());
        }
        if (!git.waitFor(60, TimeUnit.SECONDS)) {
            git.destroyForcibly();
            fail("git %s did not finish in 60 s", String.join(" ", args));
        }
        if (git.exitValue() != 0) {
            fail("git %s exited %d: %s", String.join(" ", args), git.exitValue(), read(err));
        }
        return read(out);
    }

    /** Commits every change in the clone and pushes it as a user would ({@code git push}); returns the commit. */
    public String commitAndPush(String message) throws IOException, InterruptedException {
        git("add", "-A");
        git("commit", "-q", "-m", message);
        git("push", "-q");
        return git("rev-parse", "HEAD").strip();
    }

    /** Stops it as Ctrl-C does, waiting for the process and its children to go. */
    @Override
    public void close() {
        stop(process);
    }

    private static void stop(Process process) {
        List<ProcessHandle> tree = new ArrayList<>(process.descendants().toList());
        process.destroy();
        try {
            if (!process.waitFor(30, TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
        tree.forEach(ProcessHandle::destroyForcibly);
    }

    private static String read(Path file) throws IOException {
        return Files.exists(file) ? Files.readString(file, StandardCharsets.UTF_8) : "";
    }
}
