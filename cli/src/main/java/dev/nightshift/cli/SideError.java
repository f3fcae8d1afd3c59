package dev.nightshift.cli;

import dev.nightshift.spec.load.SpecError;

/** A load error and which side of a diff ({@code old} or {@code new}) it came from. */
record SideError(String side, SpecError error) {
}
