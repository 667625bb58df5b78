package io.walsink.flink.convert;

import static org.assertj.core.api.Assertions.assertThat;

import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.types.Row;
import org.apache.flink.types.RowKind;
import org.junit.jupiter.api.Test;

class ChangeActionTest {

    @Test
    void insertsAndUpdateAftersUpsertDeletesDeleteUpdateBeforesAreSkipped() {
        assertThat(ChangeAction.of(RowKind.INSERT)).isEqualTo(ChangeAction.UPSERT);
        assertThat(ChangeAction.of(RowKind.UPDATE_AFTER)).isEqualTo(ChangeAction.UPSERT);
        assertThat(ChangeAction.of(RowKind.DELETE)).isEqualTo(ChangeAction.DELETE);
        assertThat(ChangeAction.of(RowKind.UPDATE_BEFORE)).isEqualTo(ChangeAction.SKIP);
    }

    @Test
    void rowsAndRowDataAreJudgedByTheirKind() {
        assertThat(ChangeAction.of(GenericRowData.ofKind(RowKind.DELETE, 1L))).isEqualTo(ChangeAction.DELETE);
        assertThat(ChangeAction.of(Row.ofKind(RowKind.UPDATE_BEFORE, 1L))).isEqualTo(ChangeAction.SKIP);
        assertThat(ChangeAction.of(Row.of(1L))).isEqualTo(ChangeAction.UPSERT);
    }
}
