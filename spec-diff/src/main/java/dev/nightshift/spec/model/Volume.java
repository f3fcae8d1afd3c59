package dev.nightshift.spec.model;

public record Volume(String type, Quantity size) {
}
