package dev.nightshift.spec.model;

/** What a pool's machines do. Declared in rollout order: bastions first, worker nodes last. */
public enum PoolRole {
    BASTION("bastion"),
    CONTROL_PLANE("control-plane"),
    APISERVER("apiserver"),
    NODE("node");

    private final String yamlName;

    PoolRole(String yamlName) {
        this.yamlName = yamlName;
    }

    public String yamlName() {
        return yamlName;
    }

    @Override
    public String toString() {
        return yamlName;
    }
}
