package io.drover.model.api;

import java.util.List;

/** One page of a list endpoint. */
public record Page<T>(List<T> items, long total, long offset, int limit) {
}
