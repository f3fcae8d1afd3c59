package dev.nightshift.agent.health;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import com.sun.net.httpserver.HttpServer;

/** Prometheus's answers, and every way of not getting one, each an answer: never an exception, never passing. */
class PrometheusClientTest {

    @TempDir
    Path tmp;

    private HttpServer server;
    private final List<String> authorizations = new CopyOnWriteArrayList<>();
    private final List<String> queries = new CopyOnWriteArrayList<>();

    @AfterEach
    void stop() {
        if (server != null) {
            server.stop(0);
        }
    }

    private URI serve(int status, String body, Duration delay) throws Exception {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/api/v1/query", x -> {
            authorizations.add(String.valueOf(x.getRequestHeaders().getFirst("Authorization")));
            queries.add(x.getRequestURI().getRawQuery());
            try {
                Thread.sleep(delay.toMillis());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
            x.sendResponseHeaders(status, bytes.length);
            x.getResponseBody().write(bytes);
            x.close();
        });
        server.start();
        return URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/");
    }

    private static String vector(String... values) {
        StringBuilder b = new StringBuilder("{\"status\":\"success\",\"data\":{\"resultType\":\"vector\",\"result\":[");
        for (int i = 0; i < values.length; i++) {
            b.append(i > 0 ? "," : "").append("{\"metric\":{\"i\":\"").append(i).append("\"},\"value\":[1700000000.1,\"")
                    .append(values[i]).append("\"]}");
        }
        return b.append("]}}").toString();
    }

    @Test
    void oneSeriesIsItsValueAndTheTokenGoesAsABearerHeader() throws Exception {
        URI url = serve(200, vector("0.07"), Duration.ZERO);
        Path token = Files.writeString(tmp.resolve("token"), "s3cret\n");

        QueryAnswer answer = new PrometheusClient(new PrometheusEndpoint(url, Optional.of(token), Optional.empty(), Duration.ofSeconds(2)))
                .query("sum(rate(x[5m])) / 2");

        assertThat(answer).isEqualTo(new QueryAnswer.Value(0.07));
        assertThat(authorizations).containsExactly("Bearer s3cret");
        assertThat(queries).containsExactly("query=sum%28rate%28x%5B5m%5D%29%29+%2F+2");
    }

    @Test
    void noDataIsUnknown() throws Exception {
        URI url = serve(200, vector(), Duration.ZERO);

        assertThat(new PrometheusClient(PrometheusEndpoint.of(url)).query("x")).isEqualTo(new QueryAnswer.Unknown("no data"));
    }

    @Test
    void severalSeriesAreUnknown() throws Exception {
        URI url = serve(200, vector("1", "2"), Duration.ZERO);

        assertThat(new PrometheusClient(PrometheusEndpoint.of(url)).query("x")).isEqualTo(new QueryAnswer.Unknown("2 series, expected one"));
    }

    @Test
    void aQueryErrorIsUnknownWithPrometheusReason() throws Exception {
        URI url = serve(400, "{\"status\":\"error\",\"errorType\":\"bad_data\",\"error\":\"parse error at char 3\"}", Duration.ZERO);

        QueryAnswer answer = new PrometheusClient(PrometheusEndpoint.of(url)).query("x +");

        assertThat(answer).isEqualTo(new QueryAnswer.Unknown("Prometheus answered HTTP 400: parse error at char 3"));
    }

    @Test
    void aSlowAnswerIsUnknownAfterTheTimeout() throws Exception {
        URI url = serve(200, vector("0"), Duration.ofSeconds(3));

        long start = System.nanoTime();
        QueryAnswer answer = new PrometheusClient(new PrometheusEndpoint(url, Optional.empty(), Optional.empty(), Duration.ofMillis(300)))
                .query("x");

        assertThat(answer).isInstanceOf(QueryAnswer.Unknown.class);
        assertThat(((QueryAnswer.Unknown) answer).why()).contains("unreachable", "HttpTimeoutException");
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(2));
    }

    @Test
    void anUnreachableServerIsUnknown() {
        QueryAnswer answer = new PrometheusClient(PrometheusEndpoint.of(URI.create("http://127.0.0.1:1"))).query("x");

        assertThat(answer).isInstanceOf(QueryAnswer.Unknown.class);
        assertThat(((QueryAnswer.Unknown) answer).why()).startsWith("Prometheus at http://127.0.0.1:1 unreachable");
    }

    @Test
    void aMissingTokenFileIsUnknownAndNothingIsSent() throws Exception {
        URI url = serve(200, vector("0"), Duration.ZERO);

        QueryAnswer answer = new PrometheusClient(new PrometheusEndpoint(url, Optional.of(tmp.resolve("absent")), Optional.empty(),
                Duration.ofSeconds(2))).query("x");

        assertThat(answer).isEqualTo(new QueryAnswer.Unknown("Prometheus token file " + tmp.resolve("absent") + ": no such file"));
        assertThat(queries).isEmpty();
    }

    @Test
    void aScalarIsItsValueAndNaNIsUnknown() {
        assertThat(PrometheusClient.answer(200, "{\"status\":\"success\",\"data\":{\"resultType\":\"scalar\",\"result\":[1,\"0.5\"]}}"
                .getBytes(StandardCharsets.UTF_8))).isEqualTo(new QueryAnswer.Value(0.5));
        assertThat(PrometheusClient.answer(200, vector("NaN").getBytes(StandardCharsets.UTF_8)))
                .isEqualTo(new QueryAnswer.Unknown("the value is NaN"));
        assertThat(PrometheusClient.answer(502, "<html>bad gateway</html>".getBytes(StandardCharsets.UTF_8)))
                .isEqualTo(new QueryAnswer.Unknown("Prometheus answered HTTP 502 without JSON"));
    }
}
