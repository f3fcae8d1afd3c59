package dev.nightshift.sandbox.machineapi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;

import org.junit.jupiter.api.Test;

class HoldsTest {

    @Test
    void holdsTheChosenRequestsOfEachOperationForTheirTime() {
        Holds holds = Holds.parse("create:2, replace:1:30");

        assertThat(holds.of(Operation.CREATE, 2)).contains(Duration.ofSeconds(60));
        assertThat(holds.of(Operation.REPLACE, 1)).contains(Duration.ofSeconds(30));
        assertThat(holds.of(Operation.CREATE, 1)).isEmpty();
        assertThat(holds.of(Operation.DELETE, 2)).isEmpty();
        assertThat(Holds.parse("").of(Operation.CREATE, 1)).isEmpty();
    }

    @Test
    void aLostAnswerIsNotAHold() {
        Holds holds = Holds.parse("create:1:lost,create:2");

        assertThat(holds.loses(Operation.CREATE, 1)).isTrue();
        assertThat(holds.of(Operation.CREATE, 1)).isEmpty();
        assertThat(holds.loses(Operation.CREATE, 2)).isFalse();
        assertThat(holds.of(Operation.CREATE, 2)).contains(Duration.ofSeconds(60));
        assertThat(holds.loses(Operation.REPLACE, 1)).isFalse();
    }

    @Test
    void aWrongHoldIsRefusedNamingIt() {
        assertThatThrownBy(() -> Holds.parse("create:2,explode:1")).hasMessageContaining("\"explode\" is not one of list, create");
        assertThatThrownBy(() -> Holds.parse("create:0")).hasMessageContaining("\"0\" is not a positive number");
        assertThatThrownBy(() -> Holds.parse("create")).hasMessageContaining("is not OP:N, OP:N:SECONDS or OP:N:lost");
        assertThatThrownBy(() -> Holds.parse("create:1:lose")).hasMessageContaining("\"lose\" is not a positive number");
    }

    @Test
    void anUnlistedCreateIsHeldAndOnlyCreatesCanBeUnlisted() {
        Holds holds = Holds.parse("create:2:10:unlisted,replace:1:10");

        assertThat(holds.of(Operation.CREATE, 2)).contains(Duration.ofSeconds(10));
        assertThat(holds.unlisted(Operation.CREATE, 2)).isTrue();
        assertThat(holds.unlisted(Operation.CREATE, 1)).isFalse();
        assertThat(holds.unlisted(Operation.REPLACE, 1)).isFalse();
        assertThatThrownBy(() -> Holds.parse("replace:1:10:unlisted")).hasMessageContaining("create:N:SECONDS:unlisted");
    }
}
