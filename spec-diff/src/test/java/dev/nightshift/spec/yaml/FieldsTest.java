package dev.nightshift.spec.yaml;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import org.junit.jupiter.api.Test;

/** The reader's rules on their own, as both the spec and the agent configuration get them. */
class FieldsTest {

    private final List<YamlError> errors = new ArrayList<>();

    private Fields read(String yaml, QuotedScalars quoted) {
        YamlNode document = YamlDocuments.single("f.yaml", yaml, errors).orElseThrow();
        assertThat(errors).as("composing errors").isEmpty();
        return Fields.of((YamlNode.MapNode) document, errors, quoted);
    }

    private List<String> messages() {
        return errors.stream().map(YamlError::toString).toList();
    }

    @Test
    void aStringFieldTakesYaml11BooleansAndNumbersAsWritten() {
        Fields f = read("a: no\nb: 1.30\nc: 010\nd: 2026-01-01\n", QuotedScalars.STAY_STRINGS);

        assertThat(List.of(f.string("a"), f.string("b"), f.string("c"), f.string("d")))
                .containsExactly(Optional.of("no"), Optional.of("1.30"), Optional.of("010"), Optional.of("2026-01-01"));
        assertThat(errors).isEmpty();
    }

    @Test
    void aQuotedNumberOrBooleanIsAStringUnlessTheReaderReadsQuotedValuesByTheirText() {
        String yaml = "n: \"12\"\nb: 'true'\n";

        Fields strict = read(yaml, QuotedScalars.STAY_STRINGS);
        assertThat(strict.integer("n", 0, 100, "a number from 0 to 100")).isEmpty();
        assertThat(strict.bool("b", false)).isFalse();
        assertThat(messages()).containsExactly("f.yaml:1:4: n: must be a number from 0 to 100, got \"12\"",
                "f.yaml:2:4: b: must be true or false, got \"true\"");

        errors.clear();
        Fields byText = read(yaml, QuotedScalars.READ_BY_TEXT);
        assertThat(byText.integer("n", 0, 100, "a number from 0 to 100")).contains(12);
        assertThat(byText.bool("b", false)).isTrue();
        assertThat(errors).isEmpty();
    }

    @Test
    void anOctalLookingNumberIsRefusedQuotedOrNotWithTheReason() {
        Fields f = read("a: 010\nb: \"010\"\n", QuotedScalars.READ_BY_TEXT);

        assertThat(f.integer("a", 0, 100, "a number")).isEmpty();
        assertThat(f.integer("b", 0, 100, "a number")).isEmpty();
        assertThat(messages()).containsExactly(
                "f.yaml:1:4: a: must be a number, got \"010\" (a leading 0 means octal in YAML 1.1: write the number without it)",
                "f.yaml:2:4: b: must be a number, got \"010\" (a leading 0 means octal in YAML 1.1: write the number without it)");
    }

    @Test
    void yaml11SpellingsOfBooleansAndNumbersAreRefusedWhereTheTypeIsExpected() {
        Fields f = read("a: yes\nb: 0x1F\nc: 1_000\nd: 1:30\ne: True\n", QuotedScalars.READ_BY_TEXT);

        f.bool("a", false);
        f.integer("b", 0, Integer.MAX_VALUE, "a decimal integer");
        f.integer("c", 0, Integer.MAX_VALUE, "a decimal integer");
        f.integer("d", 0, Integer.MAX_VALUE, "a decimal integer");
        f.bool("e", false);

        assertThat(messages()).containsExactly(
                "f.yaml:1:4: a: must be true or false, got \"yes\"",
                "f.yaml:2:4: b: must be a decimal integer, got \"0x1F\"",
                "f.yaml:3:4: c: must be a decimal integer, got \"1_000\"",
                "f.yaml:4:4: d: must be a decimal integer, got \"1:30\"",
                "f.yaml:5:4: e: must be true or false, got \"True\"");
    }

    @Test
    void aValueOfTheWrongTypeIsNamedWithTheTypeExpectedAndLeavesNoStandIn() {
        Fields f = read("s: {a: 1}\nl: x\nm: [1]\n", QuotedScalars.STAY_STRINGS);

        assertThat(f.string("s")).as("no stand-in that a later check would complain about").isEmpty();
        assertThat(f.strings("l", "[\"a\"]")).isEmpty();
        assertThat(f.map("m")).isEmpty();
        assertThat(messages()).containsExactly(
                "f.yaml:1:4: s: must be a string, got a mapping",
                "f.yaml:2:4: l: must be a list, such as [\"a\"], got \"x\"",
                "f.yaml:3:4: m: must be a mapping, got a list");
    }

    @Test
    void aKeyWrittenWithNothingIsAsIfNotWrittenYetIsSeenAsWritten() {
        Fields f = read("a:\nb: ~\nc: null\n", QuotedScalars.STAY_STRINGS);

        assertThat(List.of(f.string("a"), f.string("b"), f.string("c"))).containsOnly(Optional.empty());
        assertThat(f.written("a")).isTrue();
        assertThat(f.written("z")).isFalse();
        f.finish();
        assertThat(errors).isEmpty();
    }

    @Test
    void unknownKeysAreReportedAtTheKeyWithTheirPath() {
        Fields f = read("outer:\n  known: 1\n  unknwon: 2\n", QuotedScalars.STAY_STRINGS);

        Fields outer = f.mapOrEmpty("outer");
        outer.integer("known", 0);
        outer.finish();
        f.finish();

        assertThat(messages()).containsExactly("f.yaml:3:3: outer.unknwon: unknown field");
    }

    @Test
    void aRefusedKeyIsReportedAtTheKeyAndNotAgainAsUnknown() {
        Fields f = read("user: me\ntoken: hunter2\n", QuotedScalars.STAY_STRINGS);

        f.string("user");
        f.refuse("token", "secrets are never written here");
        f.finish();

        assertThat(messages()).containsExactly("f.yaml:2:1: token: secrets are never written here");
    }

    @Test
    void anAbsentSectionReadsAsAnEmptyOneAtItsParentsPlace() {
        Fields f = read("a: 1\n", QuotedScalars.STAY_STRINGS);

        Fields absent = f.mapOrEmpty("section");

        assertThat(absent.keys()).isEmpty();
        assertThat(absent.where()).isEqualTo(f.where());
        assertThat(absent.path("key")).isEqualTo("section.key");
    }

    @Test
    void aFileWithASecondDocumentIsRefusedWhereItHoldsOne() {
        assertThat(YamlDocuments.single("f.yaml", "a: 1\n---\nb: 2\n", errors)).isEmpty();
        assertThat(messages()).singleElement().asString().startsWith("f.yaml:3:1: a second YAML document");

        errors.clear();
        assertThat(YamlDocuments.single("f.yaml", "---\na: 1\n---\n# nothing\n", errors)).isPresent();
        assertThat(YamlDocuments.single("f.yaml", "# only a comment\n", errors)).isEmpty();
        assertThat(errors).isEmpty();
    }

    @Test
    void aDuplicateKeyIsRefusedAtTheSecondNamingTheLineOfTheFirst() {
        assertThat(YamlDocuments.compose("f.yaml", "a:\n  b: 1\n  c: 2\n  b: 3\n", errors)).isEmpty();

        assertThat(messages()).containsExactly("f.yaml:4:3: a.b: duplicate key (first set at line 2)");
    }

    @Test
    void textThatIsNotUtf8OrTooLargeIsRefusedUnread() {
        assertThat(YamlText.decode("f.yaml", "a: caf\u00e9".getBytes(StandardCharsets.ISO_8859_1), errors)).isEmpty();
        assertThat(YamlText.decode("g.yaml", new byte[YamlText.MAX_BYTES + 1], errors)).isEmpty();
        assertThat(YamlText.decode("h.yaml", "a: caf\u00e9".getBytes(StandardCharsets.UTF_8), errors)).contains("a: caf\u00e9");

        assertThat(messages()).containsExactly("f.yaml:1:1: is not valid UTF-8", "g.yaml:1:1: file is larger than 3145728 bytes");
    }
}
