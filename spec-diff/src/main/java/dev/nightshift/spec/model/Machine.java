package dev.nightshift.spec.model;

public record Machine(String type, MachineImageRef image) {
}
