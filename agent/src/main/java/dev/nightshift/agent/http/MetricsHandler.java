package dev.nightshift.agent.http;

import java.io.IOException;
import java.nio.charset.StandardCharsets;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;

import dev.nightshift.agent.metrics.AgentMetrics;

/** {@code GET /metrics}: the Prometheus text format, or OpenMetrics when the scraper asks for it. */
public final class MetricsHandler implements HttpHandler {

    private final AgentMetrics metrics;

    public MetricsHandler(AgentMetrics metrics) {
        this.metrics = metrics;
    }

    @Override
    public void handle(HttpExchange exchange) throws IOException {
        try (exchange) {
            if (!"GET".equals(exchange.getRequestMethod())) {
                exchange.sendResponseHeaders(405, -1);
                return;
            }
            AgentMetrics.Exposition exposition = metrics.scrape(exchange.getRequestHeaders().getFirst("Accept"));
            byte[] body = exposition.body().getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().set("Content-Type", exposition.contentType());
            exchange.sendResponseHeaders(200, body.length);
            exchange.getResponseBody().write(body);
        }
    }
}
