package dev.nightshift.agent.nodeupdate;

import java.util.Arrays;
import java.util.Optional;

/** What a node updater Job does on its node: the word in its name and the value of {@code NIGHTSHIFT_OPERATION}. */
public enum UpdateOperation {
    /** Updates the node in place to the pool's desired spec (operating system, kubelet, runtime). */
    IN_PLACE("in-place", "in-place-update"),
    /** Restarts the kubelet with the pool's desired kubelet configuration and version. */
    RESTART_KUBELET("kubelet", "restart-kubelet");

    private final String nameWord;
    private final String value;

    UpdateOperation(String nameWord, String value) {
        this.nameWord = nameWord;
        this.value = value;
    }

    /** The word in the Job's name: {@code in-place} or {@code kubelet}. */
    public String nameWord() {
        return nameWord;
    }

    /** {@code NIGHTSHIFT_OPERATION} and the Job's operation label: {@code in-place-update} or {@code restart-kubelet}. */
    public String value() {
        return value;
    }

    public static Optional<UpdateOperation> of(String value) {
        return Arrays.stream(values()).filter(o -> o.value.equals(value)).findFirst();
    }
}
