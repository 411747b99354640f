BX2sJ
ף=