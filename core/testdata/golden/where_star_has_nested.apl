logs | where * has "GET" and status == 200 or not(* has "Higgs") and * !has "GET" | count
