package dev.nightshift.agent.health;

import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.security.GeneralSecurityException;

import javax.net.ssl.SSLContext;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import dev.nightshift.agent.git.CaFile;

/**
 * Prometheus's HTTP API ({@code GET /api/v1/query}) with the JDK's client: a timeout per query, the
 * bearer token read from its file on every query and never logged or repeated in an answer. Every
 * failure is an answer ({@link QueryAnswer.Unknown}), never an exception: a check that cannot be
 * evaluated is unknown, not passing.
 */
public final class PrometheusClient implements PrometheusQueries {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int MAX_BODY = 1 << 20;

    private final PrometheusEndpoint endpoint;
    private final HttpClient http;

    public PrometheusClient(PrometheusEndpoint endpoint) {
        this.endpoint = endpoint;
        HttpClient.Builder builder = HttpClient.newBuilder().connectTimeout(endpoint.timeout())
                .followRedirects(HttpClient.Redirect.NEVER);
        endpoint.caFile().ifPresent(ca -> builder.sslContext(trusting(ca)));
        this.http = builder.build();
    }

    @Override
    public QueryAnswer query(String promql) {
        String base = endpoint.url().toString().replaceAll("/+$", "");
        URI uri = URI.create(base + "/api/v1/query?query=" + URLEncoder.encode(promql, StandardCharsets.UTF_8));
        HttpRequest.Builder request = HttpRequest.newBuilder(uri).timeout(endpoint.timeout()).header("Accept", "application/json").GET();
        if (endpoint.tokenFile().isPresent()) {
            String token;
            try {
                token = Files.readString(endpoint.tokenFile().get(), StandardCharsets.UTF_8).strip();
            } catch (NoSuchFileException e) {
                return new QueryAnswer.Unknown("Prometheus token file " + endpoint.tokenFile().get() + ": no such file");
            } catch (IOException e) {
                return new QueryAnswer.Unknown("Prometheus token file " + endpoint.tokenFile().get() + " cannot be read");
            }
            if (token.isEmpty() || !token.chars().allMatch(c -> c > 0x20 && c < 0x7f)) {
                return new QueryAnswer.Unknown("Prometheus token file " + endpoint.tokenFile().get() + " holds no usable token");
            }
            request.header("Authorization", "Bearer " + token);
        }
        HttpResponse<byte[]> response;
        try {
            response = http.send(request.build(), HttpResponse.BodyHandlers.ofByteArray());
        } catch (IOException e) {
            return new QueryAnswer.Unknown("Prometheus at " + base + " unreachable: " + e.getClass().getSimpleName());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new QueryAnswer.Unknown("interrupted while asking Prometheus");
        }
        return answer(response.statusCode(), response.body());
    }

    /** The answer in a response: one finite number, or why not. */
    static QueryAnswer answer(int status, byte[] body) {
        if (body.length > MAX_BODY) {
            return new QueryAnswer.Unknown("Prometheus answered more than " + MAX_BODY + " bytes");
        }
        JsonNode root;
        try {
            root = JSON.readTree(body);
        } catch (IOException e) {
            return new QueryAnswer.Unknown("Prometheus answered HTTP " + status + " without JSON");
        }
        if (root == null || !"success".equals(root.path("status").asText())) {
            String error = root == null ? "" : root.path("error").asText("");
            return new QueryAnswer.Unknown("Prometheus answered HTTP " + status + (error.isEmpty() ? "" : ": " + error));
        }
        JsonNode data = root.path("data");
        String type = data.path("resultType").asText();
        JsonNode value;
        switch (type) {
            case "scalar" -> value = data.path("result");
            case "vector" -> {
                JsonNode result = data.path("result");
                if (result.size() == 0) {
                    return new QueryAnswer.Unknown("no data");
                }
                if (result.size() > 1) {
                    return new QueryAnswer.Unknown(result.size() + " series, expected one");
                }
                value = result.get(0).path("value");
            }
            default -> {
                return new QueryAnswer.Unknown("a " + type + " result, expected a vector of one series or a scalar");
            }
        }
        try {
            double v = Double.parseDouble(value.path(1).asText());
            return Double.isFinite(v) ? new QueryAnswer.Value(v) : new QueryAnswer.Unknown("the value is " + value.path(1).asText());
        } catch (NumberFormatException e) {
            return new QueryAnswer.Unknown("the value is not a number");
        }
    }

    private static SSLContext trusting(java.nio.file.Path caFile) {
        try {
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(null, CaFile.trustManagers(caFile), null);
            return context;
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("the JDK cannot build a TLS context trusting " + caFile + ": " + e.getMessage(), e);
        }
    }
}
