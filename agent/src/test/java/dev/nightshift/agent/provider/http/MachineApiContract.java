package dev.nightshift.agent.provider.http;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

import com.atlassian.oai.validator.OpenApiInteractionValidator;
import com.atlassian.oai.validator.model.SimpleRequest;
import com.atlassian.oai.validator.report.ValidationReport;
import com.github.tomakehurst.wiremock.http.HttpHeader;
import com.github.tomakehurst.wiremock.stubbing.ServeEvent;
import com.github.tomakehurst.wiremock.verification.LoggedRequest;

import io.swagger.v3.oas.models.OpenAPI;
import io.swagger.v3.parser.OpenAPIV3Parser;
import io.swagger.v3.parser.core.models.ParseOptions;
import io.swagger.v3.parser.core.models.SwaggerParseResult;

/**
 * The machine API's OpenAPI file ({@code machine-api/v1.yaml}) as Atlassian's
 * swagger-request-validator reads it: judges the requests WireMock recorded, so that what the
 * client sends is checked against the reference, not against our own reading of it.
 */
final class MachineApiContract {

    static final String RESOURCE = "machine-api/v1.yaml";

    private final OpenApiInteractionValidator validator = validator();

    /**
     * A validator for the OpenAPI file that also checks the bearer token. The file requires it once,
     * at its root, which OpenAPI applies to every operation without its own {@code security}; the
     * validator only reads an operation's own, so the root requirement is copied onto each.
     */
    static OpenApiInteractionValidator validator() {
        ParseOptions options = new ParseOptions();
        options.setResolve(true);
        options.setResolveFully(true);
        SwaggerParseResult parsed = new OpenAPIV3Parser().readContents(specification(), null, options);
        if (!parsed.getMessages().isEmpty()) {
            throw new IllegalStateException(RESOURCE + ": " + parsed.getMessages());
        }
        OpenAPI api = parsed.getOpenAPI();
        api.getPaths().values().forEach(path -> path.readOperations().stream()
                .filter(operation -> operation.getSecurity() == null)
                .forEach(operation -> operation.setSecurity(api.getSecurity())));
        return OpenApiInteractionValidator.createFor(api).build();
    }

    static String specification() {
        try (InputStream in = Objects.requireNonNull(MachineApiContract.class.getClassLoader().getResourceAsStream(RESOURCE), RESOURCE)) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * What the validator says about each recorded request that breaks the API, one line each
     * ({@code METHOD URL: messages}); empty when every request conforms.
     *
     * @param basePath the path the client's base URL had, which the OpenAPI file's paths do not
     */
    List<String> violations(List<ServeEvent> served, String basePath) {
        List<String> violations = new ArrayList<>();
        for (ServeEvent event : served) {
            LoggedRequest request = event.getRequest();
            ValidationReport report = validator.validateRequest(asValidatorRequest(request, basePath));
            if (report.hasErrors()) {
                violations.add(request.getMethod().getName() + " " + request.getUrl() + ": " + report.getMessages());
            }
        }
        return violations;
    }

    private static SimpleRequest asValidatorRequest(LoggedRequest request, String basePath) {
        String url = request.getUrl();
        if (!url.startsWith(basePath)) {
            throw new IllegalStateException(url + " is not under the base path " + basePath);
        }
        SimpleRequest.Builder builder = new SimpleRequest.Builder(request.getMethod().getName(), url.substring(basePath.length()));
        for (HttpHeader header : request.getHeaders().all()) {
            builder.withHeader(header.key(), header.values());
        }
        String body = request.getBodyAsString();
        if (body != null && !body.isEmpty()) {
            builder.withBody(body);
        }
        return builder.build();
    }
}
