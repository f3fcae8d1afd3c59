package dev.nightshift.spec.yaml;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;

/** A YAML file's bytes as text: at most {@link #MAX_BYTES}, and strict UTF-8 (a bad byte is an error, never a replacement character). */
public final class YamlText {

    /** The largest YAML file read; larger ones are refused unread. */
    public static final int MAX_BYTES = 3 * 1024 * 1024;

    private YamlText() {
    }

    /** Whether a file of {@code size} bytes is refused unread; then {@link #tooLarge} says why. */
    public static boolean isTooLarge(long size) {
        return size > MAX_BYTES;
    }

    public static YamlError tooLarge(String file) {
        return YamlError.ofFile(file, "file is larger than " + MAX_BYTES + " bytes");
    }

    /** The text of {@code bytes}; empty when they are too many or not UTF-8, the error added to {@code errors}. */
    public static Optional<String> decode(String file, byte[] bytes, List<YamlError> errors) {
        if (isTooLarge(bytes.length)) {
            errors.add(tooLarge(file));
            return Optional.empty();
        }
        try {
            return Optional.of(StandardCharsets.UTF_8.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(bytes)).toString());
        } catch (CharacterCodingException e) {
            errors.add(YamlError.ofFile(file, "is not valid UTF-8"));
            return Optional.empty();
        }
    }
}
