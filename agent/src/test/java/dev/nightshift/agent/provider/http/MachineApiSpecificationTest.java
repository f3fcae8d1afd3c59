package dev.nightshift.agent.provider.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;

import org.junit.jupiter.api.Test;

import com.atlassian.oai.validator.OpenApiInteractionValidator;
import com.atlassian.oai.validator.model.SimpleRequest;
import com.atlassian.oai.validator.report.ValidationReport;

import io.swagger.v3.parser.OpenAPIV3Parser;
import io.swagger.v3.parser.core.models.ParseOptions;
import io.swagger.v3.parser.core.models.SwaggerParseResult;

/** The machine API's reference, {@code machine-api/v1.yaml}, is a valid OpenAPI 3 document. */
class MachineApiSpecificationTest {

    @Test
    void theOpenApiFileParsesWithoutErrorsOrWarnings() {
        ParseOptions options = new ParseOptions();
        options.setResolve(true);
        SwaggerParseResult result = new OpenAPIV3Parser().readContents(MachineApiContract.specification(), null, options);

        assertThat(result.getMessages()).isEmpty();
        assertThat(result.getOpenAPI().getOpenapi()).startsWith("3.0");
        assertThat(result.getOpenAPI().getPaths()).containsOnlyKeys("/v1/pools/{pool}/machines", "/v1/machines/{id}",
                "/v1/machines/{id}/replace", "/v1/machines/{id}/update");
    }

    @Test
    void theValidatorLoadsTheOpenApiFile() {
        // Throws ApiLoadException, with the parser's messages, on a file it cannot use.
        OpenApiInteractionValidator validator = OpenApiInteractionValidator.createForInlineApiSpecification(MachineApiContract.specification()).build();

        assertThat(validator).isNotNull();
    }

    @Test
    void theValidatorRefusesARequestThatBreaksTheApi() {
        // The client's tests rely on the validator to catch a wrong request: no key, no token, a wrong body.
        OpenApiInteractionValidator validator = MachineApiContract.validator();
        SimpleRequest createWithoutKeyOrToken = SimpleRequest.Builder.post("/v1/pools/workers/machines")
                .withContentType("application/json")
                .withBody("{\"labels\": {}, \"annotations\": {}, \"taints\": [], \"spec\": {}}")
                .build();

        ValidationReport report = validator.validateRequest(createWithoutKeyOrToken);

        List<String> keys = report.getMessages().stream().map(ValidationReport.Message::getKey).toList();
        assertThat(keys).contains("validation.request.parameter.header.missing", "validation.request.body.schema.required");
        assertThat(report.getMessages()).anySatisfy(m -> assertThat(m.getMessage()).contains("Idempotency-Key"));
        assertThat(keys).contains("validation.request.security.missing");
    }

    @Test
    void theValidatorAcceptsARequestThatKeepsTheApi() {
        OpenApiInteractionValidator validator = MachineApiContract.validator();
        SimpleRequest list = SimpleRequest.Builder.get("/v1/pools/workers/machines").withAuthorization("Bearer t0ken").build();

        assertThat(validator.validateRequest(list).getMessages()).isEmpty();
    }
}
