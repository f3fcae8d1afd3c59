package dev.nightshift.spec.model;

public enum TaintEffect {
    NoSchedule,
    PreferNoSchedule,
    NoExecute
}
