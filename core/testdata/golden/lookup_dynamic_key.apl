// A dynamic key (200 and "200") looks up a long key, once per status.
logs
| lookup kind=inner (datatable(status:long, label:string)[200, "ok", 404, "not found", 503, "unavailable"]) on status
| summarize count() by label
| sort by label asc
