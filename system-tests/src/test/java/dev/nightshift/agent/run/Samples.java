package dev.nightshift.agent.run;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.github.tomakehurst.wiremock.stubbing.ServeEvent;

/**
 * Writes the requests a notifications test captured to {@code target/notification-samples/<name>.txt}: the real
 * messages docs/operations/notifications.md shows are copied from there.
 */
final class Samples {

    private static final ObjectMapper JSON = new ObjectMapper();

    private Samples() {
    }

    @SafeVarargs
    static void write(Path unused, String name, List<ServeEvent>... journals) throws IOException {
        StringBuilder out = new StringBuilder();
        for (List<ServeEvent> journal : journals) {
            for (ServeEvent e : journal) {
                out.append("POST ").append(e.getRequest().getUrl()).append('\n');
                String signature = e.getRequest().getHeader("X-Nightshift-Signature-256");
                if (signature != null) {
                    out.append("X-Nightshift-Signature-256: ").append(signature).append('\n');
                }
                out.append(JSON.readTree(e.getRequest().getBodyAsString()).toPrettyString()).append("\n\n");
            }
        }
        Path dir = Files.createDirectories(Path.of("target", "notification-samples"));
        Files.writeString(dir.resolve(name + ".txt"), out.toString(), StandardCharsets.UTF_8);
    }
}
