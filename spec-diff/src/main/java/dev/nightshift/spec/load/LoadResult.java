package dev.nightshift.spec.load;

import java.util.Comparator;
import java.util.List;

import dev.nightshift.spec.model.SpecSet;

/**
 * What a load produced. A result with errors must never be acted on: {@link #specs()} then holds
 * only the documents that parsed, for reporting.
 */
public record LoadResult(SpecSet specs, List<SpecError> errors) {

    public LoadResult {
        errors = errors.stream()
                .sorted(Comparator.comparing(SpecError::file).thenComparingInt(SpecError::line)
                        .thenComparingInt(SpecError::column).thenComparing(SpecError::path))
                .distinct()
                .toList();
    }

    public boolean valid() {
        return errors.isEmpty();
    }
}
