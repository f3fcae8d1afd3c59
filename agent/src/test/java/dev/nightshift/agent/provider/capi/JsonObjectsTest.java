package dev.nightshift.agent.provider.capi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;

/** JSON merge patch by RFC 7386 and writing at a JSON pointer (RFC 6901), as templates are edited. */
class JsonObjectsTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    private static JsonNode json(String text) {
        try {
            return JSON.readTree(text);
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalArgumentException(text, e);
        }
    }

    /** RFC 7386 Appendix A, every example whose target and patch are objects (the method merges into an object). */
    @ParameterizedTest(name = "{0} + {1} = {2}")
    @CsvSource(delimiter = '|', value = {
            "{\"a\":\"b\"}                 | {\"a\":\"c\"}                      | {\"a\":\"c\"}",
            "{\"a\":\"b\"}                 | {\"b\":\"c\"}                      | {\"a\":\"b\",\"b\":\"c\"}",
            "{\"a\":\"b\"}                 | {\"a\":null}                       | {}",
            "{\"a\":\"b\",\"b\":\"c\"}     | {\"a\":null}                       | {\"b\":\"c\"}",
            "{\"a\":[\"b\"]}               | {\"a\":\"c\"}                      | {\"a\":\"c\"}",
            "{\"a\":\"c\"}                 | {\"a\":[\"b\"]}                    | {\"a\":[\"b\"]}",
            "{\"a\":{\"b\":\"c\"}}         | {\"a\":{\"b\":\"d\",\"c\":null}}   | {\"a\":{\"b\":\"d\"}}",
            "{\"a\":[{\"b\":\"c\"}]}       | {\"a\":[1]}                        | {\"a\":[1]}",
            "{\"e\":null}                  | {\"a\":1}                          | {\"e\":null,\"a\":1}",
            "{}                            | {\"a\":{\"bb\":{\"ccc\":null}}}    | {\"a\":{\"bb\":{}}}",
    })
    void mergesAsTheRfcsExamples(String target, String patch, String result) {
        ObjectNode merged = (ObjectNode) json(target);

        JsonObjects.merge(merged, json(patch));

        assertThat(merged).isEqualTo(json(result));
    }

    @Test
    void aNestedObjectPatchReplacesAValueThatIsNotAnObjectAndDropsItsNulls() {
        ObjectNode target = (ObjectNode) json("{\"a\":\"b\"}");

        JsonObjects.merge(target, json("{\"a\":{\"x\":null,\"y\":1}}"));

        assertThat(target).isEqualTo(json("{\"a\":{\"y\":1}}"));
    }

    @Test
    void theMergedValuesAreCopiesThatALaterChangeOfThePatchDoesNotReach() {
        ObjectNode target = JSON.createObjectNode();
        ObjectNode patch = (ObjectNode) json("{\"list\":[1],\"o\":{\"k\":1}}");

        JsonObjects.merge(target, patch);
        ((com.fasterxml.jackson.databind.node.ArrayNode) patch.get("list")).add(2);
        ((ObjectNode) patch.get("o")).put("k", 2);

        assertThat(target).isEqualTo(json("{\"list\":[1],\"o\":{\"k\":1}}"));
    }

    @Test
    void settingAtAPointerCreatesTheObjectsOnTheWayAndKeepsTheirOtherFields() {
        ObjectNode root = (ObjectNode) json("{\"spec\":{\"template\":{\"keep\":1}}}");

        JsonObjects.set(root, "/spec/template/spec/rootVolume/size", JSON.getNodeFactory().numberNode(80));

        assertThat(root).isEqualTo(json("{\"spec\":{\"template\":{\"keep\":1,\"spec\":{\"rootVolume\":{\"size\":80}}}}}"));
    }

    @Test
    void aPointerThroughAnArrayOrAtTheRootIsRefused() {
        ObjectNode root = (ObjectNode) json("{\"spec\":{\"list\":[1]}}");

        assertThatThrownBy(() -> JsonObjects.set(root, "/spec/list/0", TextNode.valueOf("x")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("list is not an object");
        assertThatThrownBy(() -> JsonObjects.set(root, "", TextNode.valueOf("x"))).isInstanceOf(IllegalArgumentException.class);
    }
}
