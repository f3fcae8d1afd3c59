package dev.nightshift.agent.provider.http;

import java.util.Arrays;
import java.util.Optional;

import com.fasterxml.jackson.annotation.JsonValue;

/** A machine's state in the machine API, as its JSON spells it. */
public enum MachineState {
    CREATING("creating"), RUNNING("running"), UPDATING("updating"), DELETING("deleting"), FAILED("failed");

    private final String json;

    MachineState(String json) {
        this.json = json;
    }

    @JsonValue
    public String json() {
        return json;
    }

    /** Still changing on its own: the agent lists the pool again within 30 s even if nothing else happens. */
    public boolean transitional() {
        return this == CREATING || this == UPDATING || this == DELETING;
    }

    public static Optional<MachineState> of(String json) {
        return Arrays.stream(values()).filter(s -> s.json.equals(json)).findFirst();
    }
}
