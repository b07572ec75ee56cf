logs | where * has "Higgs" | count
