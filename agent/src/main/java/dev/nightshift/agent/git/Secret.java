package dev.nightshift.agent.git;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;

/**
 * A secret read from a file or the environment, never from a flag or the config file. Prints as
 * {@code ***}, so it cannot end up in a log line or an exception message by accident.
 */
public final class Secret {

    private final String value;

    private Secret(String value) {
        this.value = value;
    }

    public static Secret fromFile(Path file) throws IOException {
        return new Secret(Files.readString(file, StandardCharsets.UTF_8).strip());
    }

    public static Optional<Secret> fromEnvironment(Map<String, String> environment, String variable) {
        return Optional.ofNullable(environment.get(variable)).filter(v -> !v.isBlank()).map(v -> new Secret(v.strip()));
    }

    /** How long the secret is, in UTF-8 bytes: what a check of its strength may know of it. */
    public int byteLength() {
        return value.getBytes(StandardCharsets.UTF_8).length;
    }

    /** Only for handing to the library that authenticates; never log the result. */
    public String reveal() {
        return value;
    }

    @Override
    public String toString() {
        return "***";
    }
}
