package dev.nightshift.image;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.concurrent.TimeUnit;

/**
 * A real image registry on 127.0.0.1, plain HTTP: Debian's {@code docker-registry} (the CNCF Distribution registry),
 * storing into a directory of the test's. What a user's registry is to {@code skopeo copy … docker://…}.
 */
public final class Registry implements AutoCloseable {

    private final Process process;
    private final int port;

    private Registry(Process process, int port) {
        this.process = process;
        this.port = port;
    }

    /** Starts one storing under {@code dir}; returns once {@code /v2/} answers. */
    public static Registry start(Path dir) throws IOException, InterruptedException {
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        Path config = Files.writeString(Files.createDirectories(dir).resolve("config.yml"), """
                version: 0.1
                storage:
                  filesystem:
                    rootdirectory: %s
                http:
                  addr: 127.0.0.1:%d
                """.formatted(dir.resolve("data"), port));
        Path log = dir.resolve("registry.log");
        Process process = new ProcessBuilder("docker-registry", "serve", config.toString()).redirectErrorStream(true)
                .redirectOutput(log.toFile()).start();
        Registry registry = new Registry(process, port);
        Instant deadline = Instant.now().plusSeconds(30);
        HttpClient http = HttpClient.newHttpClient();
        while (true) {
            try {
                if (http.send(HttpRequest.newBuilder(URI.create("http://" + registry.host() + "/v2/")).build(),
                        HttpResponse.BodyHandlers.discarding()).statusCode() == 200) {
                    return registry;
                }
            } catch (IOException notYet) {
                // not listening yet
            }
            if (!process.isAlive() || Instant.now().isAfter(deadline)) {
                registry.close();
                throw new AssertionError("docker-registry did not answer on " + registry.host() + " within 30 s: "
                        + Files.readString(log));
            }
            Thread.sleep(100);
        }
    }

    /** {@code 127.0.0.1:PORT}, the registry part of an image reference. */
    public String host() {
        return "127.0.0.1:" + port;
    }

    @Override
    public void close() {
        process.destroy();
        try {
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
