package dev.nightshift.spec.model;

public record MachineImageRef(String name, ImageVersion version) {
}
