package dev.nightshift.agent.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.regex.Pattern;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The web view's files over real HTTP on loopback: what they are served with, and what they may not do. */
class WebViewTest {

    /** The budget for the whole page: HTML, script and style sheet. */
    private static final int PAGE_BUDGET = 200 * 1024;
    private static final List<String> FILES = List.of("/", "/ui/app.js", "/ui/app.css");

    private AgentHttpServer server;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    @BeforeEach
    void start() throws IOException {
        server = new AgentHttpServer(new InetSocketAddress("127.0.0.1", 0))
                .handle("/status", new TextHandler(() -> new TextHandler.Response(200, "application/json", "{}")))
                .handle("/", new WebView());
        server.start();
    }

    @AfterEach
    void stop() {
        server.close();
    }

    private HttpResponse<String> send(String method, String path, String... headers) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + path))
                .timeout(Duration.ofSeconds(5)).method(method, HttpRequest.BodyPublishers.noBody());
        if (headers.length > 0) {
            request.headers(headers);
        }
        return http.send(request.build(), HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
    }

    @Test
    void thePageItsScriptAndItsStyleSheetAreServedWithTheirTypesAStrictPolicyAndNoSniffing() throws Exception {
        for (String[] file : new String[][] {{"/", "text/html; charset=utf-8"}, {"/ui/app.js", "text/javascript; charset=utf-8"},
                {"/ui/app.css", "text/css; charset=utf-8"}}) {
            HttpResponse<String> r = send("GET", file[0]);

            assertThat(r.statusCode()).as(file[0]).isEqualTo(200);
            assertThat(r.headers().firstValue("Content-Type")).as(file[0]).hasValue(file[1]);
            assertThat(r.headers().firstValue("X-Content-Type-Options")).as(file[0]).hasValue("nosniff");
            assertThat(r.headers().firstValue("Cache-Control")).as(file[0]).hasValue("no-cache");
            assertThat(r.headers().firstValue("ETag")).as(file[0]).isPresent();
            String policy = r.headers().firstValue("Content-Security-Policy").orElseThrow();
            assertThat(policy).startsWith("default-src 'self';").contains("script-src 'self';", "connect-src 'self';",
                    "frame-ancestors 'none'").doesNotContain("unsafe-inline", "unsafe-eval", "http:", "https:", "*");
        }
    }

    @Test
    void thePageLoadsItsOneScriptAndStyleSheetFromTheAgentAndHasNoInlineScriptOrStyle() throws Exception {
        String html = send("GET", "/").body();

        assertThat(html).contains("<script src=\"/ui/app.js\" defer></script>", "<link rel=\"stylesheet\" href=\"/ui/app.css\">");
        assertThat(Pattern.compile("<script(?![^>]*\\bsrc=)").matcher(html).find()).as("an inline script").isFalse();
        assertThat(html).doesNotContain("<style", " style=", " onclick=", " onload=");
        for (String path : FILES) {
            assertThat(send("GET", path).body()).as("%s fetches nothing from outside the agent", path)
                    .doesNotContainPattern("(src|href|url)\\s*[=(]\\s*[\"']?(https?:)?//");
        }
        assertThat(send("GET", "/ui/app.js").body()).as("the script reads /status only").contains("fetch('/status'")
                .doesNotContain("eval(", "new Function", "XMLHttpRequest", "WebSocket");
    }

    @Test
    void thePageItsScriptAndItsStyleSheetTogetherStayUnder200Kilobytes() throws Exception {
        int total = 0;
        for (String path : FILES) {
            total += send("GET", path).body().getBytes(StandardCharsets.UTF_8).length;
        }

        assertThat(total).isLessThan(PAGE_BUDGET);
    }

    @Test
    void anUnchangedFileIsAnswered304ToTheBrowsersConditionalRequest() throws Exception {
        String etag = send("GET", "/ui/app.js").headers().firstValue("ETag").orElseThrow();

        HttpResponse<String> again = send("GET", "/ui/app.js", "If-None-Match", etag);

        assertThat(again.statusCode()).isEqualTo(304);
        assertThat(again.body()).isEmpty();
    }

    @Test
    void otherPathsAre404AndOtherMethods405WhileStatusIsUnchanged() throws Exception {
        assertThat(send("GET", "/index.html").statusCode()).isEqualTo(404);
        assertThat(send("GET", "/ui/other.js").statusCode()).isEqualTo(404);
        assertThat(send("GET", "/favicon.ico").statusCode()).isEqualTo(404);
        HttpResponse<String> post = send("POST", "/");
        assertThat(post.statusCode()).isEqualTo(405);
        assertThat(post.headers().firstValue("Allow")).hasValue("GET, HEAD");
        assertThat(send("DELETE", "/ui/app.js").statusCode()).isEqualTo(405);
        HttpResponse<String> head = send("HEAD", "/");
        assertThat(head.statusCode()).isEqualTo(200);
        assertThat(head.body()).isEmpty();
        HttpResponse<String> status = send("GET", "/status");
        assertThat(status.body()).isEqualTo("{}");
        assertThat(status.headers().firstValue("Content-Type")).hasValue("application/json");
    }
}
