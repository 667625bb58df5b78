package io.walsink.storage;

import java.util.List;

/** One page of a listing; {@code continuation} is null on the last page. */
public record ListPage(List<ObjectMeta> objects, String continuation) {
    public ListPage {
        objects = List.copyOf(objects);
    }
}
