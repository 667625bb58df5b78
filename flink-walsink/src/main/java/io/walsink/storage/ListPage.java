package io.walsink.storage;

import io.walsink.annotation.Internal;
import java.util.List;

/** One page of a listing; {@code continuation} is null on the last page. */
@Internal
public record ListPage(List<ObjectMeta> objects, String continuation) {
    public ListPage {
        objects = List.copyOf(objects);
    }
}
