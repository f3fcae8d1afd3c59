package dev.nightshift.sandbox.machineapi;

import java.util.Arrays;
import java.util.Optional;
import java.util.stream.Collectors;

/** The machine API's operations: the short name {@link Holds} uses, and the OpenAPI {@code operationId} the request log writes. */
public enum Operation {
    LIST("list", "listMachines"),
    CREATE("create", "createMachine"),
    REPLACE("replace", "replaceMachine"),
    DELETE("delete", "deleteMachine"),
    UPDATE("update", "updateMachine"),
    PATCH("patch", "patchMachine");

    private final String shortName;
    private final String operationId;

    Operation(String shortName, String operationId) {
        this.shortName = shortName;
        this.operationId = operationId;
    }

    public String shortName() {
        return shortName;
    }

    public String operationId() {
        return operationId;
    }

    static Optional<Operation> of(String shortName) {
        return Arrays.stream(values()).filter(o -> o.shortName.equals(shortName)).findFirst();
    }

    static String names() {
        return Arrays.stream(values()).map(Operation::shortName).collect(Collectors.joining(", "));
    }
}
