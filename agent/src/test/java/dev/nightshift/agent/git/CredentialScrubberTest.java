package dev.nightshift.agent.git;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class CredentialScrubberTest {

    @Test
    void theUserInfoOfAUrlIsScrubbedWhetherAPasswordOrAToken() {
        assertThat(CredentialScrubber.scrub("https://nightshift:hunter2@git.example.com/c.git: not authorized"))
                .isEqualTo("https://***@git.example.com/c.git: not authorized");
        assertThat(CredentialScrubber.scrub("cannot open https://ghp_t0k3n@github.com/x.git and http://a%40b:c@h/"))
                .isEqualTo("cannot open https://***@github.com/x.git and http://***@h/");
    }

    @Test
    void anAuthorizationHeaderKeepsItsSchemeButNotItsCredentials() {
        assertThat(CredentialScrubber.scrub("sent Authorization: Bearer eyJhbGciOi.x.y, got 401"))
                .isEqualTo("sent Authorization: Bearer ***, got 401");
        assertThat(CredentialScrubber.scrub("proxy-authorization=Basic dXNlcjpwYXNz")).isEqualTo("proxy-authorization=Basic ***");
        assertThat(CredentialScrubber.scrub("authorization: s3cr3t")).isEqualTo("authorization: ***");
    }

    @Test
    void tokensAndPasswordsInQueriesAndFormsAreScrubbed() {
        assertThat(CredentialScrubber.scrub("GET /c.git/info/refs?service=git-upload-pack&access_token=abc123&x=1"))
                .isEqualTo("GET /c.git/info/refs?service=git-upload-pack&access_token=***&x=1");
        assertThat(CredentialScrubber.scrub("private_token=glpat-xyz password=p4ss; token=t0k"))
                .isEqualTo("private_token=*** password=***; token=***");
    }

    @Test
    void aMessageWithoutCredentialsIsLeftAlone() {
        String message = "cannot list https://git.example.com/c.git@main: connection refused (the bearer token file /t is fine)";

        assertThat(CredentialScrubber.scrub(message)).isEqualTo(message);
        assertThat(CredentialScrubber.scrub(null)).isNull();
    }
}
